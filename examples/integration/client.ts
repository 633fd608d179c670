import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/hiring-api.js';

export type HiringApi = ReturnType<typeof hiringApi>;
export type Assessment = components['schemas']['Assessment'];
export type Candidate = components['schemas']['Candidate'];
export type ResultRow = components['schemas']['ResultListItem'];
export type InvitationEntry = components['schemas']['InvitationEntry'];
export type Invitation = components['schemas']['Invitation'];
export type Completion = components['schemas']['Completion'];
/** An event as webhooks deliver it and the events feed lists it: the same id and body in both. */
export type Envelope = components['schemas']['Envelope'];
/**
 * A result as the integration keeps it: a `/v1/results` row, or what the envelopes about it carry
 * (they have no `reportUrl` until the row or the assessmentCompleted envelope brings it).
 */
export type StoredResult = Omit<ResultRow, 'reportUrl'> & Partial<Pick<ResultRow, 'reportUrl'>>;

/**
 * A typed client generated from docs/openapi.json (`npm run examples:types`). The key and its
 * secret stay on the server side: never put them in a web page or a mobile app.
 */
export const hiringApi = (baseUrl: string, key: string, secret: string) =>
  createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${key}:${secret}` } });

/** Every error of the API has the same shape; `code` is stable, `message` is for people. */
export class HiringApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly retryAfterSeconds: number | null) {
    super(`${status} ${code}: ${message}`);
  }
}

export const failure = (response: Response, error: unknown): HiringApiError => {
  const body = error as { error?: { code?: string; message?: string } } | undefined;
  const retryAfter = response.headers.get('retry-after');
  return new HiringApiError(response.status, body?.error?.code ?? 'unknown', body?.error?.message ?? '', retryAfter === null ? null : Number(retryAfter));
};
