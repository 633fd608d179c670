import type { Clock } from '#platform';

/** A domain clock a test owns and moves forward (an injected instance, never a global mock). */
export class TestClock implements Clock {
  private current: number;

  constructor(start = '2026-11-02T09:00:00.000Z') {
    this.current = Date.parse(start);
  }

  async now(): Promise<string> {
    return new Date(this.current).toISOString();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

export const waitFor = async <T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
