/**
 * A business refusal: carries the stable error `code` of the API documents and the HTTP status the
 * API answers with. Deciders throw these; the HTTP layer maps them without knowing the domain.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string): DomainError => new DomainError('not_found', 404, `${what} not found`);
export const validationFailed = (message: string): DomainError => new DomainError('validation_failed', 422, message);
export const invalidState = (message: string): DomainError => new DomainError('invalid_state', 409, message);

export class UnknownCommand extends Error {
  constructor(command: never) {
    super(`unknown command ${JSON.stringify(command)}`);
    this.name = 'UnknownCommand';
  }
}
