import { createCipheriv, randomBytes } from 'node:crypto';
import { openAesGcm, sealAesGcm } from './aes-gcm.js';
import { SecretBox } from './secret-box.js';

describe('AES-256-GCM sealing (iv.tag.body)', () => {
  const key = randomBytes(32);

  it('opens what it sealed, text or bytes, and only under the same key and context', () => {
    const aad = Buffer.from('stream-1\u0000assessment');
    expect(openAesGcm(key, sealAesGcm(key, 'ada@example.com', aad), aad).toString('utf8')).toBe('ada@example.com');
    const bytes = randomBytes(32);
    expect(openAesGcm(key, sealAesGcm(key, bytes)).equals(bytes)).toBe(true);
    expect(openAesGcm(key, sealAesGcm(key, '')).toString('utf8')).toBe('');
    const sealed = sealAesGcm(key, 'secret', aad);
    expect(() => openAesGcm(key, sealed, Buffer.from('stream-2\u0000assessment'))).toThrow();
    expect(() => openAesGcm(randomBytes(32), sealed, aad)).toThrow();
    const [iv, tag, body = ''] = sealed.split('.');
    expect(() => openAesGcm(key, [iv, tag, `${body.slice(0, -1)}${body.endsWith('A') ? 'B' : 'A'}`].join('.'), aad)).toThrow();
    for (const malformed of ['', 'a.b', 'a..c', `${sealed}.x`]) expect(() => openAesGcm(key, malformed, aad)).toThrow('not a sealed value');
  });

  it('opens values sealed the way the service wrote them before this helper (stored secrets, keys and fields stay readable)', () => {
    // As SecretBox, PersonKeyStore and the personal fields each sealed inline: iv, tag, body in base64url.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from('key-id-1'));
    const body = Buffer.concat([cipher.update('Lovelace', 'utf8'), cipher.final()]);
    const written = [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
    expect(openAesGcm(key, written, Buffer.from('key-id-1')).toString('utf8')).toBe('Lovelace');

    const box = new SecretBox('service-secret');
    const boxKey = (box as unknown as { key: Buffer }).key;
    const boxIv = randomBytes(12);
    const boxCipher = createCipheriv('aes-256-gcm', boxKey, boxIv);
    const boxBody = Buffer.concat([boxCipher.update('whsec_1', 'utf8'), boxCipher.final()]);
    expect(box.open(['v1', boxIv.toString('base64url'), boxCipher.getAuthTag().toString('base64url'), boxBody.toString('base64url')].join('.'))).toBe('whsec_1');
    expect(box.open(box.seal('whsec_2'))).toBe('whsec_2');
    expect(() => box.open('v2.a.b.c')).toThrow('not a sealed secret');
  });
});
