import { parseAuthorization } from './authorization-header.js';

const basic = (text: string): string => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

describe('parseAuthorization', () => {
  it('reads the Bearer form', () => {
    expect(parseAuthorization('Bearer live_abc:s3cr3t')).toEqual({ key: 'live_abc', secret: 's3cr3t' });
  });

  it('reads the Basic form', () => {
    expect(parseAuthorization(basic('SBX_abc:s3cr3t'))).toEqual({ key: 'SBX_abc', secret: 's3cr3t' });
  });

  it('accepts the scheme in any case', () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      expect(parseAuthorization(`${scheme} k:s`)).toEqual({ key: 'k', secret: 's' });
    }
    for (const scheme of ['basic', 'BASIC']) {
      expect(parseAuthorization(`${scheme} ${Buffer.from('k:s').toString('base64')}`)).toEqual({ key: 'k', secret: 's' });
    }
  });

  it('splits on the first colon only', () => {
    expect(parseAuthorization('Bearer key:se:cr:et')).toEqual({ key: 'key', secret: 'se:cr:et' });
    expect(parseAuthorization(basic('key:se:cr:et'))).toEqual({ key: 'key', secret: 'se:cr:et' });
  });

  it('accepts Basic without padding and surrounding white space', () => {
    const unpadded = Buffer.from('key:secret1').toString('base64').replace(/=+$/, '');
    expect(parseAuthorization(`Basic ${unpadded}`)).toEqual({ key: 'key', secret: 'secret1' });
    expect(parseAuthorization('  Bearer k:s  ')).toEqual({ key: 'k', secret: 's' });
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['scheme only', 'Bearer'],
    ['scheme and space', 'Bearer '],
    ['unknown scheme', 'Token k:s'],
    ['no scheme', 'k:s'],
    ['no colon', 'Bearer keysecret'],
    ['empty key', 'Bearer :secret'],
    ['empty secret', 'Bearer key:'],
    ['only a colon', 'Bearer :'],
    ['extra part', 'Bearer key:secret extra'],
    ['tab separator', 'Bearer\tkey:secret'],
    ['Basic not base64', 'Basic key:secret'],
    ['Basic with invalid characters', 'Basic a2V5**c2VjcmV0'],
    ['Basic without colon', basic('keysecret')],
    ['Basic empty key', basic(':secret')],
    ['Basic empty secret', basic('key:')],
    ['Basic empty token', 'Basic '],
    ['Basic invalid UTF-8', `Basic ${Buffer.from([0x6b, 0x3a, 0xff, 0xfe]).toString('base64')}`],
    ['Basic bad padding', 'Basic a2V5OnM==='],
  ])('refuses %s', (_label, header) => {
    expect(parseAuthorization(header)).toBeNull();
  });
});
