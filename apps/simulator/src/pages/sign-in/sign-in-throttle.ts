const WINDOW_MS = 60_000;
const FAILURES_ALLOWED = 10;
const MAX_TRACKED = 10_000;

/**
 * Wrong tokens per client address: past ten in a minute, sign-in answers 429 until the minute is
 * over, so the token cannot be guessed at the speed of the network. Per process and in memory:
 * a restart forgets, which costs a guesser a minute at most.
 */
export class SignInThrottle {
  private readonly failures = new Map<string, { count: number; windowEndsAt: number }>();

  /** Seconds to wait before trying again, or 0 when this address may try now. */
  retryAfterSeconds(address: string, nowMs: number): number {
    const entry = this.failures.get(address);
    if (!entry || entry.windowEndsAt <= nowMs) return 0;
    return entry.count >= FAILURES_ALLOWED ? Math.max(1, Math.ceil((entry.windowEndsAt - nowMs) / 1000)) : 0;
  }

  recordFailure(address: string, nowMs: number): void {
    const entry = this.failures.get(address);
    if (entry && entry.windowEndsAt > nowMs) {
      entry.count += 1;
      return;
    }
    if (this.failures.size >= MAX_TRACKED) {
      for (const [key, value] of this.failures) if (value.windowEndsAt <= nowMs) this.failures.delete(key);
      if (this.failures.size >= MAX_TRACKED) this.failures.clear();
    }
    this.failures.set(address, { count: 1, windowEndsAt: nowMs + WINDOW_MS });
  }

  recordSuccess(address: string): void {
    this.failures.delete(address);
  }
}
