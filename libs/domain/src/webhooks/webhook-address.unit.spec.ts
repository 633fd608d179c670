import { nonPublicAddressOf } from './webhook-address.js';

describe('the webhook address check at save time', () => {
  // A resolver answering like a DNS zone that points a public-looking name at internal addresses.
  const zone: Record<string, string[]> = { 'hooks.rebind.example': ['93.184.215.14', '10.0.0.7'], 'public.example': ['93.184.215.14'] };
  const resolveInZone = async (host: string) => (zone[host] ?? []).map((address) => ({ address }));

  it('names the private address a host name resolves to', async () => {
    expect(await nonPublicAddressOf('https://hooks.rebind.example/in', resolveInZone)).toBe('10.0.0.7');
    expect(await nonPublicAddressOf('https://public.example/in', resolveInZone)).toBeNull();
    expect(await nonPublicAddressOf('https://[::ffff:7f00:1]/in', resolveInZone)).toBe('::ffff:7f00:1');
  });

  it('does not refuse a name that does not resolve, nor a text that is not a URL', async () => {
    expect(await nonPublicAddressOf('https://unknown.example/in', resolveInZone)).toBeNull();
    expect(await nonPublicAddressOf('not a url', resolveInZone)).toBeNull();
  });
});
