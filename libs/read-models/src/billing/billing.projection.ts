import type { Projection } from '../shared/projection.js';

export interface BilledCandidate {
  candidateId: string;
  resultId: string;
  chargedAt: string;
}

/** Keyed by workspace id. */
export interface BillingDocument {
  workspaceId: string;
  freeAllowance: number;
  billedCandidates: BilledCandidate[];
}

export const billingProjection: Projection<BillingDocument> = {
  name: 'billing',
  indexes: [],
  eventTypes: ['WorkspaceCreated', 'CandidateCharged'],
  documentIds: (event) => ('workspaceId' in event.data ? [event.data.workspaceId] : []),
  evolve(document, event) {
    switch (event.type) {
      case 'WorkspaceCreated':
        return { workspaceId: event.data.workspaceId, freeAllowance: event.data.freeAllowance, billedCandidates: [] };
      case 'CandidateCharged': {
        if (document === null) return null;
        const { candidateId, resultId, chargedAt } = event.data;
        // A candidate is billed once however many results they have.
        if (document.billedCandidates.some((billed) => billed.candidateId === candidateId)) return document;
        return { ...document, billedCandidates: [...document.billedCandidates, { candidateId, resultId, chargedAt }] };
      }
      default:
        return document;
    }
  },
};
