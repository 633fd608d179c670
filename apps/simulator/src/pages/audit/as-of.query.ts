import { assessmentStream, candidateStream } from '#domain';
import type { EventStore, RecordedEvent } from '#event-store';
import { apiError } from '#http';
import { assessmentsProjection, candidatesProjection, documentAsOf, toAssessmentView, toCandidateView } from '#read-models';

export type AsOfResource = 'candidate' | 'assessment';

export interface AsOfAnswer {
  /** `{ data }` as GET /internal/as-of/{resource}s/{id}?at= answers it (an assessment's count is the live one). */
  state: unknown;
  streamId: string;
  /** The stream's events recorded up to that domain time: what the state is folded from. */
  events: RecordedEvent[];
}

/**
 * The one place the pages ask for a resource "as of" a domain time: the same fold as
 * GET /internal/as-of/… (the read models' own projections over the stream's events up to then, in
 * memory, nothing stored touched), with the events it was folded from.
 */
export const asOf = async (store: EventStore, appUrl: string, resource: AsOfResource, id: string, at: Date): Promise<AsOfAnswer> => {
  const streamId = resource === 'candidate' ? candidateStream(id) : assessmentStream(id);
  const recorded = await store.readStream(streamId);
  const events = recorded.filter((event) => Date.parse(event.metadata.time) <= at.getTime());
  let state: { data: unknown } | null;
  if (resource === 'candidate') {
    const doc = documentAsOf(candidatesProjection, id, recorded, { time: at });
    state = doc && { data: toCandidateView(doc, appUrl) };
  } else {
    const doc = documentAsOf(assessmentsProjection, id, recorded, { time: at });
    state = doc && { data: toAssessmentView(doc, 'live', appUrl) };
  }
  if (state === null) throw apiError('not_found', `No ${resource} ${id} existed at ${at.toISOString()}.`);
  return { state, streamId, events };
};
