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
export { generateApiKey, hashSecret, secretMatches, type ApiKeyMode, type GeneratedApiKey } from './auth/api-key-secrets.js';

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

export { parseLimit, type LimitOptions } from './query/limit.js';
export { formatTime, parseTime } from './query/time.js';
export { parseEnum, parseOptionalString } from './query/params.js';

export { MAX_JSON_DEPTH, exceedsDepth, parseJsonObjectBody } from './json/json-body.js';
export { canonicalJson } from './json/canonical-json.js';

export { ApiErrorFilter, errorResponseFor, sendError, type LegacyMatcher } from './nest/error.filter.js';
export { ALT_BASE_MARK, BODY_LIMIT_BYTES, cameThroughAltBase, configureFastify, createFastifyAdapter } from './nest/fastify-setup.js';
