import { randomUUID } from 'node:crypto';
import { type Assessment, type HiringApi, type InvitationEntry, failure } from './client.js';

export const createAssessment = async (api: HiringApi, name: string, tests: string[]): Promise<Assessment> => {
  const { data, error, response } = await api.POST('/v1/assessments', { body: { name, tests } });
  if (!data) throw failure(response, error);
  return data.data;
};

export interface Invitee {
  email: string;
  firstName?: string;
  surname?: string;
}

/**
 * Invites people with an Idempotency-Key, retrying on network errors, 429 and 409 in progress with
 * the same key: a retry never invites anyone twice, and the answer of the first success is replayed
 * (`Idempotent-Replayed: true`). Entries that fail (a bad address…) are in the answer, not errors.
 */
export const inviteCandidates = async (
  api: HiringApi,
  assessmentId: string,
  people: Invitee[],
  options: { idempotencyKey?: string; attempts?: number } = {},
): Promise<{ entries: InvitationEntry[]; replayed: boolean; idempotencyKey: string }> => {
  const idempotencyKey = options.idempotencyKey ?? randomUUID();
  let last: unknown;
  for (let attempt = 1; attempt <= (options.attempts ?? 5); attempt += 1) {
    try {
      const { data, error, response } = await api.POST('/v1/assessments/{assessmentId}/invitations', {
        params: { path: { assessmentId }, header: { 'Idempotency-Key': idempotencyKey } },
        body: { candidates: people },
      });
      if (data) return { entries: data.data, replayed: response.headers.get('idempotent-replayed') === 'true', idempotencyKey };
      const refused = failure(response, error);
      if (refused.status !== 429 && refused.code !== 'idempotency_request_in_progress') throw refused;
      last = refused;
      await new Promise((resolve) => setTimeout(resolve, (refused.retryAfterSeconds ?? 1) * 1000));
    } catch (caught) {
      if (caught instanceof Error && caught.name !== 'TypeError') throw caught;
      last = caught; // fetch failed: the network, not the API. Retry with the same key.
    }
  }
  throw last;
};
