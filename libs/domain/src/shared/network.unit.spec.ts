import { isPublicAddress } from './network.js';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '192.168.1.1', '172.16.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
    '192.0.0.8', '192.0.2.10', '198.51.100.7', '203.0.113.9',
    '::1', '::', 'fd00::1', 'fe80::1',
    // IPv6 forms that carry a private or loopback IPv4 address.
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:0:127.0.0.1', '::ffff:0:a00:1', '64:ff9b::7f00:1',
    '2002:7f00:1::', '2002:a00:1::1', '2002:c0a8:101::5',
    // Teredo hides the client address; documentation and local-use NAT64 prefixes reach nothing public.
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1', '2001:db8::1', '64:ff9b:1::a00:1', '100::1',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '93.184.215.14', '8.8.8.8', '192.0.1.10', '192.0.3.1', '192.0.128.1', '192.1.0.1',
    '2606:4700::1111', '::ffff:93.184.215.14', '2002:5db8:d70e::1', '64:ff9b::808:808', '2001:4860:4860::8888',
  ])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
