import type { HttpAnswer } from './client.js';
import { api, internal, request } from './client.js';
import type { RunningService } from './service.js';

/** Times as the API writes them (product decisions, Time and ordering). */
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const SLUGS = ['numerical-reasoning', 'verbal-reasoning', 'abstract-reasoning', 'critical-thinking', 'big-five-personality'];

/** The documented error shape, exactly: `{ error: { code, message } }` with a human message. */
export const expectError = (answer: HttpAnswer, status: number, code: string): void => {
  const seen = { status: answer.status, body: answer.body };
  expect(seen).toEqual({ status, body: { error: { code, message: expect.any(String) } } });
  expect(Object.keys(answer.body)).toEqual(['error']);
  expect(Object.keys(answer.body.error).sort()).toEqual(['code', 'message']);
  expect(answer.body.error.message.length).toBeGreaterThan(0);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
};

/** The rate-limit headers every authenticated public answer carries. */
export const expectRateLimitHeaders = (answer: HttpAnswer): void => {
  expect(answer.headers.get('x-ratelimit-limit')).toBe('120');
  expect(answer.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
};

export const basic = (credential: string): string => `Basic ${Buffer.from(credential, 'utf8').toString('base64')}`;

export type Workspace = Awaited<ReturnType<ReturnType<typeof internal>['workspace']>>;

/** Creates an assessment through the public API and returns its body (`data`). */
export const createAssessment = async (
  service: RunningService,
  credential: string,
  body: Record<string, unknown> = {},
): Promise<Record<string, any>> => {
  const answer = await api(service, credential).post('/v1/assessments', { name: 'Backend developer', tests: [SLUGS[0]], ...body });
  if (answer.status !== 201) throw new Error(`assessment not created: ${answer.status} ${answer.text}`);
  return answer.body.data;
};

export const invite = (service: RunningService, credential: string, assessmentId: string, candidates: unknown, headers: Record<string, string> = {}) =>
  api(service, credential).post(`/v1/assessments/${assessmentId}/invitations`, { candidates }, headers);

/** Today (UTC) in the service's domain clock, read from a fresh write's `createdAt`. */
export const domainToday = async (service: RunningService, credential: string): Promise<string> =>
  String((await createAssessment(service, credential, { name: 'clock probe' })).createdAt).slice(0, 10);

export const addDays = (day: string, days: number): string => {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
};

/** A raw HTTP request with an exact body string and headers (no JSON encoding by the client). */
export const rawPost = (url: string, raw: string, headers: Record<string, string>) => request(url, { method: 'POST', headers, raw });

let counter = 0;
/** A unique address for this run. */
export const email = (label = 'person'): string => `${label}.${Date.now().toString(36)}.${(counter += 1)}@example.com`;
