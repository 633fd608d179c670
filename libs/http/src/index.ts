export { ERROR_MESSAGES, ERROR_STATUS, isErrorCode, type ErrorCode } from './errors/error-codes.js';
export {
  ApiError,
  apiError,
  errorBody,
  legacyErrorBody,
  toErrorResponse,
  type ErrorBody,
  type ErrorResponse,
  type LegacyErrorBody,
} from './errors/api-error.js';

export { parseAuthorization, type ApiCredential } from './auth/authorization-header.js';
export { bearerMatcher } from './auth/bearer-token.js';

export {
  RedisRateLimiter,
  rateLimitHeaders,
  type RateLimitDecision,
  type RateLimiterOptions,
} from './rate-limit/redis-rate-limiter.js';

export {
  RedisIdempotencyStore,
  type IdempotencyBegin,
  type IdempotencyScope,
  type IdempotencyStoreOptions,
  type IdempotentRequest,
  type StoredResponse,
} from './idempotency/redis-idempotency-store.js';
export { fingerprint, validateIdempotencyKey, type IdempotencyKeyCheck } from './idempotency/idempotency-key.js';

export {
  CursorCodec,
  hashFilters,
  type CursorFilters,
  type CursorPayload,
  type CursorValue,
} from './cursors/cursor-codec.js';
export { readCursorParam } from './cursors/cursor-param.js';

export { formatTime, parseIsoTime, parseTime } from './query/time.js';

export { parseJsonObjectBody } from './json/json-body.js';
export { JSON_LIMITS, jsonTextExcess, type JsonLimits, type JsonTextExcess } from './json/json-limits.js';
export { QUERY_LIMITS, queryExcess, type QueryLimits } from './query/query-limits.js';

export { ApiErrorFilter, errorResponseFor, sendError, type LegacyMatcher } from './nest/error.filter.js';
export { FailedAuthThrottle, type FailedAuthThrottleOptions } from './auth/failed-auth-throttle.js';
export { refuseUnstorableInput } from './nest/unstorable-input.js';
export { ALT_BASE_MARK, BODY_LIMIT_BYTES, cameThroughAltBase, configureFastify, createFastifyAdapter } from './nest/fastify-setup.js';

export { EdgeValidationPipe } from './validation/edge-validation.pipe.js';
export { RequiredJsonBody } from './validation/json-body.interceptor.js';
export { CursorParam, NameListParam, OneOfParam, TextParam, TimeParam, WholeNumberParam } from './validation/query-params.js';
export { IdempotencyInterceptor, type IdempotencyOwner } from './idempotency/idempotency.interceptor.js';
export { fixOpenApi30Schemas, toJsonSchema2020 } from './openapi/openapi-31.js';
export { mountPublicDocs } from './openapi/docs-routes.js';
