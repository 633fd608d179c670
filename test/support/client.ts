import { checkConformance } from './openapi-conformance.js';
import type { RunningService } from './service.js';

export interface HttpAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

const parse = async (response: Response): Promise<HttpAnswer> => {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
};

export const request = async (url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; raw?: string } = {}): Promise<HttpAnswer> => {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const method = init.method ?? (body === undefined ? 'GET' : 'POST');
  const answer = await parse(await fetch(url, { method, headers, body }));
  checkConformance(method, url, answer);
  return answer;
};

/** Checks an answer another client received (its body not read yet) against the documents, as `request` does. */
export const checkAnswer = async (method: string, url: string, response: Response): Promise<void> => {
  checkConformance(method, url, await parse(response.clone()));
};

/** The internal application, as operators and every end-to-end test drive it. */
export const internal = (service: RunningService) => {
  const auth = { authorization: `Bearer ${service.internalToken}` };
  const call = (method: string, path: string, body?: unknown) => request(`${service.internalUrl}${path}`, { method, headers: auth, body });
  return {
    call,
    async workspace(options: { verified?: boolean; freeAllowance?: number; name?: string } = {}) {
      const created = await call('POST', '/internal/workspaces', { name: options.name ?? 'Acme', freeAllowance: options.freeAllowance ?? 0 });
      const id: string = created.body.data.id;
      if (options.verified !== false) await call('POST', `/internal/workspaces/${id}/verify`);
      const live = (await call('POST', `/internal/workspaces/${id}/api-keys`, { mode: 'live' })).body.data;
      const sandbox = (await call('POST', `/internal/workspaces/${id}/api-keys`, { mode: 'sandbox' })).body.data;
      return { id, live: `${live.key}:${live.secret}`, sandbox: `${sandbox.key}:${sandbox.secret}`, liveKey: live, sandboxKey: sandbox };
    },
    register: (body: unknown) => call('POST', '/internal/registrations', body),
    start: (candidateId: string, assessmentId: string) => call('POST', `/internal/candidates/${candidateId}/assessments/${assessmentId}/start`),
    complete: (candidateId: string, assessmentId: string, slug: string, scores: Record<string, unknown> = {}) =>
      call('POST', `/internal/candidates/${candidateId}/assessments/${assessmentId}/tests/${slug}/complete`, {
        scorePercentage: 75, speedCompleted: 300, questionsAnswered: 10, questionsCorrect: 7, questionsIncorrect: 3, questionsTotal: 10, ...scores,
      }),
    unlock: (resultId: string) => call('POST', `/internal/results/${resultId}/unlock`),
    close: (assessmentId: string) => call('POST', `/internal/assessments/${assessmentId}/close`),
  };
};

/** The public API with one credential (`key:secret`). */
export const api = (service: RunningService, credential: string, base = '') => {
  const headers = { authorization: `Bearer ${credential}` };
  return {
    get: (path: string, extra: Record<string, string> = {}) => request(`${service.baseUrl}${base}${path}`, { headers: { ...headers, ...extra } }),
    post: (path: string, body: unknown, extra: Record<string, string> = {}) => request(`${service.baseUrl}${base}${path}`, { method: 'POST', headers: { ...headers, ...extra }, body }),
    raw: (path: string, init: { method?: string; headers?: Record<string, string>; raw?: string }) =>
      request(`${service.baseUrl}${base}${path}`, { ...init, headers: { ...headers, ...init.headers } }),
  };
};
