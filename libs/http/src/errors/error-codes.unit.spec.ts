import { DomainError, type DomainErrorCode } from '#domain';
import { toErrorResponse } from './api-error.js';
import { ERROR_STATUS } from './error-codes.js';

/*
 * The status the API answers each of the domain's refusals with. The deciders know only the code
 * (their specs compare codes); this table, one entry per DomainErrorCode, is where the status of
 * each is pinned: a new code does not compile here until it has one.
 */
const DOMAIN_REFUSAL_STATUS: Record<DomainErrorCode, number> = {
  not_found: 404,
  validation_failed: 422,
  invalid_state: 409,
  conflict: 409,
  not_a_test_candidate: 409,
  already_completed: 409,
  sandbox_candidate: 409,
  live_candidate: 409,
  unknown_test: 422,
  too_many_candidates: 422,
  workspace_unverified: 403,
  assessment_closed: 422,
  sandbox_limit: 422,
};

describe("the domain's refusals at the edge", () => {
  it.each(Object.entries(DOMAIN_REFUSAL_STATUS))('answers %s with %i and its code', (code, status) => {
    const refusal = new DomainError(code as DomainErrorCode, 'refused');
    expect(ERROR_STATUS).toHaveProperty(code, status);
    expect(toErrorResponse(refusal)).toEqual({ status, body: { error: { code, message: 'refused' } }, headers: {} });
  });
});
