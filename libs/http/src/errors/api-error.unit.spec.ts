import { ApiError, apiError, errorBody, legacyErrorBody, toErrorResponse } from './api-error.js';
import { ERROR_MESSAGES, ERROR_STATUS } from './error-codes.js';

describe('ApiError', () => {
  it('carries status, code, message and headers', () => {
    const error = new ApiError(429, 'rate_limited', 'slow down', { 'Retry-After': '3' });
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(429);
    expect(error.code).toBe('rate_limited');
    expect(error.message).toBe('slow down');
    expect(error.headers).toEqual({ 'Retry-After': '3' });
    expect(error.name).toBe('ApiError');
  });

  it('builds known codes with their status and standard message', () => {
    const error = apiError('invalid_cursor');
    expect(error.status).toBe(400);
    expect(error.message).toBe(ERROR_MESSAGES.invalid_cursor);
    expect(apiError('not_found', 'Assessment not found.').message).toBe('Assessment not found.');
  });

  it('has a status and a message for every code of section 7', () => {
    const expected: Record<string, number> = {
      invalid_parameter: 400, invalid_cursor: 400, invalid_json: 400, invalid_idempotency_key: 400,
      unauthorized: 401, workspace_unverified: 403, not_found: 404, idempotency_key_reused: 409,
      idempotency_request_in_progress: 409, validation_failed: 422, too_many_candidates: 422,
      assessment_closed: 422, unknown_test: 422, sandbox_limit: 422, rate_limited: 429, server_error: 500,
    };
    for (const [code, status] of Object.entries(expected)) {
      expect(ERROR_STATUS).toHaveProperty(code, status);
      expect(ERROR_MESSAGES).toHaveProperty(code);
    }
  });
});

describe('error bodies', () => {
  it('uses the standard shape', () => {
    expect(errorBody('not_found', 'Not found.')).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
  });

  it('uses strings for both fields on the original endpoint', () => {
    expect(legacyErrorBody(403, 'Invalid credentials.')).toEqual({ status: '403', code: 'Invalid credentials.' });
  });
});

describe('toErrorResponse', () => {
  it('answers an ApiError with its own status, body and headers', () => {
    const response = toErrorResponse(apiError('rate_limited', undefined, { 'Retry-After': '7' }));
    expect(response).toEqual({
      status: 429,
      body: { error: { code: 'rate_limited', message: ERROR_MESSAGES.rate_limited } },
      headers: { 'Retry-After': '7' },
    });
  });

  it('answers a coded error from another layer with its status and code', () => {
    const domainError = Object.assign(new Error('Assessment closed'), { code: 'assessment_closed', status: 422 });
    expect(toErrorResponse(domainError)).toEqual({
      status: 422,
      body: { error: { code: 'assessment_closed', message: 'Assessment closed' } },
      headers: {},
    });
  });

  it('hides the details of anything else behind a 500', () => {
    const systemError = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1'), { code: 'ECONNREFUSED' });
    for (const thrown of [systemError, new TypeError('x is undefined'), 'a string']) {
      expect(toErrorResponse(thrown)).toEqual({
        status: 500,
        body: { error: { code: 'server_error', message: ERROR_MESSAGES.server_error } },
        headers: {},
      });
    }
  });
});
