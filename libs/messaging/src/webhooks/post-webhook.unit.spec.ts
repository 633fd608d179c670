import { addressForLogs } from './post-webhook.js';

describe('webhook addresses in log lines', () => {
  it.each([
    ['https://hooks.example.com/in', 'https://hooks.example.com/in'],
    ['https://hooks.example.com/in?token=s3cret&x=1', 'https://hooks.example.com/in?…redacted'],
    ['https://hooks.example.com:8443/in#s3cret', 'https://hooks.example.com:8443/in#…redacted'],
    ['https://user:s3cret@hooks.example.com/in?token=s3cret#s3cret', 'https://…redacted@hooks.example.com/in?…redacted'],
    ['http://127.0.0.1:4000/?s3cret', 'http://127.0.0.1:4000/?…redacted'],
    ['not a url s3cret', '(not a URL: redacted)'],
  ])('%s is logged as %s', (address, logged) => {
    expect(addressForLogs(address)).toBe(logged);
    expect(addressForLogs(address)).not.toContain('s3cret');
  });
});
