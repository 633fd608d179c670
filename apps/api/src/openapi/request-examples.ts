import { EXAMPLES } from './examples.js';

/*
 * The requests of the document's examples. The bodies are the ones scripts/capture-openapi-examples.mjs
 * sends (it imports them from the build), so the answers in examples.ts are what these requests got;
 * the ids are the ones those answers carry. test/openapi-tools.e2e.spec.ts sends the bodies to a
 * running service. Keyed by operationId (bodies) and by parameter name (ids).
 */

export const REQUEST_EXAMPLES: Record<string, Record<string, unknown>> = {
  createAssessment: { name: 'Backend engineer, autumn intake', tests: ['numerical-reasoning', 'big-five-personality'], deadline: null },
  inviteCandidates: {
    candidates: [{ email: 'Ann.Lee@example.com', firstName: 'Ann', surname: 'Lee' }, { email: 'not-an-address', firstName: 'Bo' }],
  },
};

type Answer = { data: { id: string } };
const idOf = (answer: unknown): string => (answer as Answer).data.id;

/** An id for each path parameter, and for the query parameters that take one. */
export const PARAMETER_EXAMPLES: Record<string, string> = {
  assessmentId: idOf(EXAMPLES['assessment']),
  assessment: idOf(EXAMPLES['assessment']),
  candidateId: idOf(EXAMPLES['candidate']),
  eventId: idOf(EXAMPLES['event']),
};
