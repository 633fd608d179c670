import { ERROR_MESSAGES, ERROR_STATUS, type ErrorCode, isErrorCode } from './error-codes.js';

/** An HTTP refusal the API layer answers as is: status, stable code, message and extra headers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Builds the ApiError of a known code with its status and, unless given, its standard message. */
export const apiError = (code: ErrorCode, message?: string, headers?: Record<string, string>): ApiError =>
  new ApiError(ERROR_STATUS[code], code, message ?? ERROR_MESSAGES[code], headers);

export const errorBody = (code: string, message: string) => ({ error: { code, message } });

/** The original `GET /candidates` endpoint keeps its own shape: both fields are strings. */
export const legacyErrorBody = (status: number, message: string) => ({ status: String(status), code: message });

export interface ErrorResponse {
  status: number;
  body: ReturnType<typeof errorBody>;
  headers: Record<string, string>;
}

/**
 * The response for anything thrown: an ApiError, any error whose `code` is in the table (the domain's
 * refusals, not imported at run time), else a 500 whose details are not leaked.
 */
export const toErrorResponse = (error: unknown): ErrorResponse => {
  if (error instanceof ApiError) {
    return { status: error.status, body: errorBody(error.code, error.message), headers: { ...error.headers } };
  }
  if (isCodedError(error)) {
    return { status: ERROR_STATUS[error.code], body: errorBody(error.code, error.message), headers: {} };
  }
  return { status: 500, body: errorBody('server_error', ERROR_MESSAGES.server_error), headers: {} };
};

// Driver errors carry codes too (`ECONNREFUSED`, `23505`): only the codes of the table are refusals.
const isCodedError = (error: unknown): error is Error & { code: ErrorCode } => {
  if (!(error instanceof Error)) return false;
  const { code } = error as Error & { code?: unknown };
  return typeof code === 'string' && isErrorCode(code);
};
