import { resolveHostNow } from './resolve-host.js';

describe('resolveHostNow', () => {
  it('answers what the system resolver answers (localhost is loopback)', async () => {
    const addresses = (await resolveHostNow('localhost')).map(({ address }) => address);
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(address).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it('answers no address for a name that does not resolve', async () => {
    expect(await resolveHostNow('no-such-host.invalid')).toEqual([]);
  });
});
