/** Every refusal a decider can give; libs/http decides, in one table, the HTTP status of each. */
export type DomainErrorCode =
  | 'not_found' | 'validation_failed' | 'invalid_state' | 'conflict' | 'not_a_test_candidate' | 'already_completed'
  | 'sandbox_candidate' | 'live_candidate' | 'unknown_test' | 'too_many_candidates' | 'workspace_unverified'
  | 'assessment_closed' | 'sandbox_limit';

/**
 * A business refusal: carries the stable error `code` of the API documents and a message for people.
 * It knows nothing of HTTP: the status of each code is decided once, in libs/http.
 */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string): DomainError => new DomainError('not_found', `${what} not found`);
export const validationFailed = (message: string): DomainError => new DomainError('validation_failed', message);
export const invalidState = (message: string): DomainError => new DomainError('invalid_state', message);

export class UnknownCommand extends Error {
  constructor(command: never) {
    super(`unknown command ${JSON.stringify(command)}`);
    this.name = 'UnknownCommand';
  }
}
