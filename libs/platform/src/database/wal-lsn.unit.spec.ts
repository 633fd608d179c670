import { parseLsn } from './wal-lsn.js';

describe('WAL positions (pg_lsn text)', () => {
  it('orders positions as PostgreSQL does, across the 32-bit halves', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('0/FFFFFFFF') < parseLsn('1/0')).toBe(true);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xB374D848n);
    expect(parseLsn('16/b374d848')).toBe(parseLsn('16/B374D848'));
    // Text comparison would put 9 after 10.
    expect(parseLsn('0/9') < parseLsn('0/10')).toBe(true);
  });

  it('refuses what is not a position', () => {
    for (const text of ['', '16', '16/', '/1', 'G/1', '1/2/3', '123456789/0']) expect(() => parseLsn(text)).toThrow(/not a WAL position/);
  });
});
