import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { AddressRefusedError, pinnedLookup, resolveDeliveryTarget } from './address-guard.js';

export interface AttemptOutcome {
  responseStatus: number | null;
  durationMs: number;
  /** null for a 2xx, `http_<status>` for another answer, `timeout` or `connection_failed` when none came. */
  error: string | null;
  /** Why no answer came, for the logs only (never shown to the workspace). */
  detail?: string;
}

export interface PostWebhookInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowInsecure: boolean;
}

class AttemptTimeout extends Error {}

const outcomeOf = (status: number, durationMs: number): AttemptOutcome => ({
  responseStatus: status,
  durationMs,
  error: status >= 200 && status < 300 ? null : `http_${status}`,
});

/** One delivery attempt: a POST to the checked, pinned address; redirects are answers, not followed. */
export const postWebhook = async (input: PostWebhookInput): Promise<AttemptOutcome> => {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  let target;
  try {
    target = await resolveDeliveryTarget(input.url, input.allowInsecure);
  } catch (error) {
    const detail = error instanceof AddressRefusedError ? error.message : String(error);
    return { responseStatus: null, durationMs: elapsed(), error: 'connection_failed', detail };
  }
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = Buffer.from(input.body, 'utf8');
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(target.url, {
      method: 'POST',
      headers: { ...input.headers, 'Content-Length': String(body.length) },
      lookup: pinnedLookup(target),
      // No pooled sockets: a socket opened for one pinned address is never reused for another.
      agent: false,
    });
    const timer = setTimeout(() => req.destroy(new AttemptTimeout('no answer in time')), input.timeoutMs);
    req.on('response', (res: IncomingMessage) => {
      finish(outcomeOf(res.statusCode ?? 0, elapsed()));
      // The answer's body is not needed; drain it so the socket closes, but never wait for it.
      res.setTimeout(input.timeoutMs, () => res.destroy());
      res.on('error', () => undefined);
      res.resume();
    });
    req.on('error', (error) => {
      const timedOut = error instanceof AttemptTimeout;
      finish({ responseStatus: null, durationMs: elapsed(), error: timedOut ? 'timeout' : 'connection_failed', detail: error.message });
    });
    req.end(body);
  });
};
