import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { AddressRefusedError, type DeliveryTarget, pinnedLookup, resolveDeliveryTarget } from './address-guard.js';

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

/**
 * A webhook address for a log line: scheme, host and path. Query and fragment often carry the
 * integrator's token and user information is a password: each becomes a marker (`?…redacted`).
 */
export const addressForLogs = (address: string): string => {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return '(not a URL: redacted)';
  }
  const userinfo = url.username !== '' || url.password !== '' ? '…redacted@' : '';
  const rest = url.search !== '' ? '?…redacted' : url.hash !== '' ? '#…redacted' : '';
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${rest}`;
};

const MAX_AGENTS = 1_000;
const MAX_SOCKETS_PER_ADDRESS = 64;
const agents = new Map<string, HttpAgent>();

/**
 * Keep-alive sockets (a handshake per delivery was most of its cost), pooled per checked address: an
 * agent only connects to the address it is keyed by, so a socket is never reused for another one.
 */
const agentFor = (target: DeliveryTarget): HttpAgent => {
  const key = `${target.url.protocol}//${target.url.host}@${target.address}`;
  const known = agents.get(key);
  if (known) return known;
  if (agents.size >= MAX_AGENTS) {
    const [oldestKey, oldest] = agents.entries().next().value ?? [];
    if (oldestKey !== undefined) agents.delete(oldestKey);
    oldest?.destroy();
  }
  // As many idle sockets kept as may be open: with fewer, the surplus was closed and reopened after every lull.
  const options = { keepAlive: true, maxSockets: MAX_SOCKETS_PER_ADDRESS, maxFreeSockets: MAX_SOCKETS_PER_ADDRESS, timeout: 60_000, lookup: pinnedLookup(target) };
  const agent = target.url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
  agents.set(key, agent);
  return agent;
};

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
      agent: agentFor(target),
    });
    const timer = setTimeout(() => req.destroy(new AttemptTimeout('no answer in time')), input.timeoutMs);
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      finish({ responseStatus: status, durationMs: elapsed(), error: status >= 200 && status < 300 ? null : `http_${status}` });
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
