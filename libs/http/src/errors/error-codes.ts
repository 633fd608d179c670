import { type DomainErrorCode, MAX_CANDIDATES_PER_REQUEST } from '#domain';

/** The one table of error codes and their HTTP status. Messages are for people and may change; clients key on the code. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  invalid_cursor: 400,
  invalid_json: 400,
  invalid_idempotency_key: 400,
  unauthorized: 401,
  forbidden: 403,
  workspace_unverified: 403,
  not_found: 404,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  validation_failed: 422,
  too_many_candidates: 422,
  assessment_closed: 422,
  unknown_test: 422,
  sandbox_limit: 422,
  rate_limited: 429,
  server_error: 500,
  // The internal application's refusals (internal-app.md).
  invalid_state: 409,
  already_completed: 409,
  not_a_test_candidate: 409,
  live_candidate: 409,
  sandbox_candidate: 409,
  conflict: 409,
  // Refusals made before any route runs (body or headers too large, bytes that are not HTTP).
  bad_request: 400,
  payload_too_large: 413,
  request_too_large: 431,
  request_timeout: 408,
} as const satisfies Record<DomainErrorCode, number> & Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_STATUS, code);

export const ERROR_MESSAGES: Readonly<Record<ErrorCode, string>> = {
  invalid_parameter: 'A query parameter is not valid.',
  invalid_cursor: 'The cursor was changed or did not come from meta.nextCursor.',
  invalid_json: 'The request body is not a JSON object.',
  invalid_idempotency_key: 'Idempotency-Key must be 1 to 255 printable characters without spaces.',
  unauthorized: 'The credential is missing, malformed or wrong.',
  // Only the original endpoint answers credential problems with 403 (API document 5.2).
  forbidden: 'Authentication credentials were not provided or are not valid.',
  workspace_unverified: 'Invitations are refused until someone in the workspace has confirmed an e-mail address.',
  not_found: 'Not found.',
  idempotency_key_reused: 'This Idempotency-Key was already used with a different request.',
  idempotency_request_in_progress: 'The first request with this Idempotency-Key is still running; retry later.',
  validation_failed: 'The request body is well formed but a field is missing or wrong.',
  too_many_candidates: `At most ${MAX_CANDIDATES_PER_REQUEST} people can be invited in one request.`,
  assessment_closed: 'The assessment is closed or past its deadline.',
  unknown_test: 'A test slug is not in the catalogue.',
  sandbox_limit: 'The sandbox allowance of test candidates for the last 30 days is used up.',
  rate_limited: 'Too many requests with this API key; retry after Retry-After seconds.',
  server_error: 'Something went wrong on our side.',
  invalid_state: 'The request is not allowed in the current state.',
  already_completed: 'The test was already finished.',
  not_a_test_candidate: 'Only test candidates can be deleted.',
  live_candidate: 'The address is a live candidate of the workspace.',
  sandbox_candidate: 'The address is a test candidate of the workspace.',
  conflict: 'The resource already exists.',
  bad_request: 'The request is not valid HTTP.',
  payload_too_large: 'The request body is too large.',
  request_too_large: 'The request line or headers are too large.',
  request_timeout: 'The request did not arrive in time.',
};
