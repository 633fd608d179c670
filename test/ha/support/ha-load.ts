import { randomUUID } from 'node:crypto';

/**
 * The steady load of the HA tier: clients inviting one person per request with an Idempotency-Key,
 * retrying the same request (same key, same body) on a 5xx, a 409 in progress or a network error, as
 * an integrator's client does, alternating the two API processes; and, after each acknowledged
 * invitation, a read of the events feed on the OTHER API process that must show it.
 */

export interface Attempt {
  api: number;
  startedAt: number;
  tookMs: number;
  /** 0: no HTTP answer (network error or the client's own 12 s limit). */
  status: number;
  code: string | null;
  retryAfter: string | null;
}

export interface Invitation {
  email: string;
  key: string;
  attempts: Attempt[];
  /** When the 200 arrived; null while not acknowledged. */
  acknowledgedAt: number | null;
  replayed: boolean;
}

export interface Read {
  email: string;
  api: number;
  startedAt: number;
  tookMs: number;
  status: number;
  /** Whether a 200 read showed the acknowledged invitation. */
  saw: boolean;
}

export interface Load {
  invitations: Invitation[];
  reads: Read[];
  /** Stops starting new invitations; those being retried are finished (acknowledged) first. */
  stop(): Promise<void>;
}

/** A request the client waits for no longer than this: a longer wait is a finding (no request may wait more than 10 s). */
export const CLIENT_TIMEOUT_MS = 12_000;
const GIVE_UP_AFTER_MS = 90_000;
const PAUSE_BETWEEN_INVITATIONS_MS = 800;

const pause = (ms: number) => new Promise((resolveLater) => setTimeout(resolveLater, ms));

export const startLoad = (options: {
  apiUrls: readonly string[];
  credentials: readonly Record<string, string>[];
  assessmentId: string;
  label: string;
}): Load => {
  const invitations: Invitation[] = [];
  const reads: Read[] = [];
  let running = true;
  let counter = 0;

  const invite = async (auth: Record<string, string>, invitation: Invitation, api: number): Promise<Attempt> => {
    const startedAt = Date.now();
    try {
      const response = await fetch(`${options.apiUrls[api]}/v1/assessments/${options.assessmentId}/invitations`, {
        method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': invitation.key },
        body: JSON.stringify({ candidates: [{ email: invitation.email }] }), signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      const text = await response.text();
      let code: string | null = null;
      try {
        code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null;
      } catch {
        code = 'not json';
      }
      if (response.status === 200 && response.headers.get('idempotent-replayed') === 'true') invitation.replayed = true;
      return { api, startedAt, tookMs: Date.now() - startedAt, status: response.status, code, retryAfter: response.headers.get('retry-after') };
    } catch (error) {
      return { api, startedAt, tookMs: Date.now() - startedAt, status: 0, code: (error as Error).name, retryAfter: null };
    }
  };

  /** The events feed on the other API process, from a little before the first attempt, page by page. */
  const read = async (auth: Record<string, string>, invitation: Invitation, api: number): Promise<void> => {
    const startedAt = Date.now();
    const since = new Date((invitation.attempts[0]?.startedAt ?? startedAt) - 2000).toISOString();
    let cursor: string | null = null;
    let status = 0;
    let saw = false;
    try {
      for (let page = 0; page < 10 && !saw; page += 1) {
        const query = new URLSearchParams({ type: 'candidateInvited', since, limit: '100', ...(cursor === null ? {} : { cursor }) });
        const response = await fetch(`${options.apiUrls[api]}/v1/events?${query.toString()}`, { headers: auth, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
        status = response.status;
        if (status !== 200) break;
        const body = (await response.json()) as { data: { data: { invitation?: { email?: string } } }[]; meta: { nextCursor: string; hasMore: boolean } };
        saw = body.data.some((envelope) => envelope.data.invitation?.email === invitation.email);
        if (!body.meta.hasMore) break;
        cursor = body.meta.nextCursor;
      }
    } catch {
      status = 0;
    }
    reads.push({ email: invitation.email, api, startedAt, tookMs: Date.now() - startedAt, status, saw });
  };

  const client = async (auth: Record<string, string>, index: number): Promise<void> => {
    while (running) {
      counter += 1;
      const invitation: Invitation = { email: `${options.label}.${index}.${counter}@example.com`, key: randomUUID(), attempts: [], acknowledgedAt: null, replayed: false };
      invitations.push(invitation);
      const firstApi = counter % options.apiUrls.length;
      for (let attempt = 0; ; attempt += 1) {
        // A retry goes to the other process, as a client behind a load balancer would meet it.
        const api = (firstApi + attempt) % options.apiUrls.length;
        const answer = await invite(auth, invitation, api);
        invitation.attempts.push(answer);
        if (answer.status === 200) {
          invitation.acknowledgedAt = Date.now();
          break;
        }
        // What a client retries: no answer, 5xx, a request still in progress, its own rate limit (after Retry-After).
        const retriable = answer.status === 0 || answer.status >= 500 || answer.status === 429 || answer.code === 'idempotency_request_in_progress';
        if (!retriable || Date.now() - (invitation.attempts[0]?.startedAt ?? 0) > GIVE_UP_AFTER_MS) break;
        const retryAfterMs = Number(answer.retryAfter ?? '0') * 1000;
        // Sooner than Retry-After asks (capped at half a second) so that the tier measures the recovery, not its own wait.
        await pause(Math.min(Math.max(retryAfterMs, 200), 500));
      }
      if (invitation.acknowledgedAt !== null) await read(auth, invitation, (firstApi + 1) % options.apiUrls.length);
      // About 1.5 requests a second per key: well under the contract's 120 a minute.
      await pause(PAUSE_BETWEEN_INVITATIONS_MS);
    }
  };

  const clients = options.credentials.map((auth, index) => client(auth, index));
  return {
    invitations,
    reads,
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
};

/**
 * Fault to recovery: from the fault to the first acknowledged invitation (its answer's arrival) among
 * requests that started after the first one that failed (500, or no answer) after the fault: the
 * outage as clients met it. Nothing failed: to the first acknowledged invitation after the fault.
 */
export const recoveryAfter = (invitations: readonly Invitation[], faultAt: number, windowEnd: number, api?: number): { ms: number; failures: number } | null => {
  const attempts = invitations.flatMap((invitation) => invitation.attempts)
    .filter((attempt) => attempt.startedAt >= faultAt && attempt.startedAt < windowEnd && (api === undefined || attempt.api === api))
    .sort((a, b) => a.startedAt - b.startedAt);
  const failed = (attempt: Attempt): boolean => attempt.status === 0 || attempt.status >= 500;
  const firstFailure = attempts.find(failed)?.startedAt ?? faultAt;
  const firstGood = attempts.filter((attempt) => attempt.status === 200 && attempt.startedAt > firstFailure)
    .map((attempt) => attempt.startedAt + attempt.tookMs).sort((a, b) => a - b)[0];
  return firstGood === undefined ? null : { ms: firstGood - faultAt, failures: attempts.filter(failed).length };
};
