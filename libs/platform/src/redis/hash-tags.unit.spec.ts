import { loadConfig } from '../config/config.js';
import { hashTagOf, hashTagged, prefixPattern } from './hash-tags.js';

describe('hash tags', () => {
  it('finds the tag as Redis Cluster does: the first {...} with something inside', () => {
    expect(hashTagOf('{ht-1}:webhooks:1')).toBe('ht-1');
    expect(hashTagOf('idem:{ws_1}:{key}')).toBe('ws_1');
    expect(hashTagOf('a{}b{c}')).toBeNull();
    expect(hashTagOf('a{b')).toBeNull();
    expect(hashTagOf('ht-1:webhooks')).toBeNull();
  });

  it('wraps a name without a tag and keeps one that has one', () => {
    expect(hashTagged('ht-0123456789')).toBe('{ht-0123456789}');
    expect(hashTagged('{acme}')).toBe('{acme}');
    expect(hashTagged('acme-{eu}')).toBe('acme-{eu}');
    expect(hashTagged('odd{}')).toBe('{odd{}}');
  });

  it('escapes glob characters so a prefix matches only itself', () => {
    expect(prefixPattern('{ht-1}:')).toBe('{ht-1}:*');
    expect(prefixPattern('a*b?[c]\\')).toBe('a\\*b\\?\\[c\\]\\\\*');
  });
});

describe('the queue prefix of the configuration', () => {
  it('is hash-tagged by default, and says which untagged prefix earlier releases used', () => {
    const config = loadConfig({ DATA_DIR: '/var/lib/hiring-test' });
    expect(config.queuePrefix).toMatch(/^\{ht-[0-9a-f]{10}\}$/);
    expect(hashTagOf(config.queuePrefix)).toBe(config.redisName);
    expect(config.legacyQueuePrefix).toBe(config.redisName);
  });

  it('wraps an operator\'s QUEUE_PREFIX in braces, and uses one with a tag as given (nothing moved then)', () => {
    expect(loadConfig({ QUEUE_PREFIX: 'acme' })).toMatchObject({ queuePrefix: '{acme}', redisName: 'acme', legacyQueuePrefix: 'acme' });
    expect(loadConfig({ QUEUE_PREFIX: 'acme-{eu}' })).toMatchObject({ queuePrefix: 'acme-{eu}', redisName: 'acme-{eu}', legacyQueuePrefix: null });
  });
});
