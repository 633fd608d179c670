import { at, event, workspaceCreated } from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { billingProjection, type BillingDocument } from './billing.projection.js';

describe('billing projection', () => {
  it('lists each charged candidate once with the result that charged them', () => {
    const charge = (candidateId: string, resultId: string, minute: number) =>
      event('CandidateCharged', { workspaceId: 'w1', candidateId, resultId, chargedAt: at(minute) });
    const free = event('FreeAllowanceUsed', { workspaceId: 'w1', candidateId: 'c0', resultId: 'r0', usedAt: at(1) });
    expect(project<BillingDocument>(billingProjection, [workspaceCreated('w1', at(0), 1), free, charge('c1', 'r1', 2), charge('c1', 'r2', 3), charge('c2', 'r3', 4)], 'w1')).toEqual({
      workspaceId: 'w1',
      freeAllowance: 1,
      billedCandidates: [{ candidateId: 'c1', resultId: 'r1', chargedAt: at(2) }, { candidateId: 'c2', resultId: 'r3', chargedAt: at(4) }],
    });
  });
});
