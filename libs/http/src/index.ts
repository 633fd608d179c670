export { ERROR_MESSAGES, type ErrorCode } from './errors/error-codes.js';
export { ApiError, apiError, errorBody, toErrorResponse } from './errors/api-error.js';

export { parseAuthorization, type ApiCredential } from './auth/authorization-header.js';
export { bearerMatcher } from './auth/bearer-token.js';

export { RedisRateLimiter, rateLimitHeaders } from './rate-limit/redis-rate-limiter.js';

export { RedisIdempotencyStore } from './idempotency/redis-idempotency-store.js';

export { CursorCodec } from './cursors/cursor-codec.js';
export { MAX_CURSOR_LENGTH, readCursorParam } from './cursors/cursor-param.js';

export { formatTime, parseIsoTime, parseTime } from './query/time.js';

export { parseJsonObjectBody } from './json/json-body.js';

export { ApiErrorFilter, errorResponseFor, sendError } from './nest/error.filter.js';
export { FailedAuthThrottle } from './auth/failed-auth-throttle.js';
export { refuseUnstorableInput } from './nest/unstorable-input.js';
export { MAX_ID_LENGTH, cameThroughAltBase, configureFastify, createFastifyAdapter } from './nest/fastify-setup.js';

export { EdgeValidationPipe } from './validation/edge-validation.pipe.js';
export { JsonBody, OptionalJsonBody, RequiredJsonBody, hasBody, type ReceivedBody } from './validation/json-body.interceptor.js';
export { CursorParam, NameListParam, OneOfParam, TextParam, TimeParam, WholeNumberParam } from './validation/query-params.js';
export { IdempotencyInterceptor, type IdempotencyOwner } from './idempotency/idempotency.interceptor.js';
export { fixOpenApi30Schemas } from './openapi/openapi-31.js';
export { mountPublicDocs } from './openapi/docs-routes.js';
export { RESULT_FIELDS, VIEW_SCHEMAS, resultList } from './openapi/view-schemas.js';
/** The builders of the documents' schemas, one set for the public and the internal document. */
export * as schemaParts from './openapi/view-schemas.js';
