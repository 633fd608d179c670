import { keySlot } from './key-slots.js';

describe('keySlot', () => {
  it('gives the slots the Redis Cluster specification gives', () => {
    // CRC16 of "123456789" is 0x31C3 (the specification's check value); 12739 % 16384.
    expect(keySlot('123456789')).toBe(0x31c3);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('bar')).toBe(5061);
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'));
    // An empty first tag makes the whole key count (the specification's own example).
    expect(keySlot('foo{}{bar}')).not.toBe(keySlot('bar'));
  });
});
