import { SignInThrottle } from './sign-in-throttle.js';

describe('sign-in throttle', () => {
  it('lets ten wrong tokens a minute through, then asks the address to wait until the minute is over', () => {
    const throttle = new SignInThrottle();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect(throttle.retryAfterSeconds('10.0.0.1', 1000)).toBe(0);
      throttle.recordFailure('10.0.0.1', 1000);
    }
    expect(throttle.retryAfterSeconds('10.0.0.1', 1000)).toBe(60);
    expect(throttle.retryAfterSeconds('10.0.0.1', 60_500)).toBe(1);
    expect(throttle.retryAfterSeconds('10.0.0.2', 1000)).toBe(0);
    expect(throttle.retryAfterSeconds('10.0.0.1', 61_000)).toBe(0);
  });

  it('forgets an address once it signs in', () => {
    const throttle = new SignInThrottle();
    for (let attempt = 0; attempt < 10; attempt += 1) throttle.recordFailure('10.0.0.1', 0);
    throttle.recordSuccess('10.0.0.1');
    expect(throttle.retryAfterSeconds('10.0.0.1', 0)).toBe(0);
  });
});
