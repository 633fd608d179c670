import { at, event, workspaceCreated } from '../test-support/domain-fixtures.js';
import { createHarness, type Harness } from '../test-support/harness.js';
import { billingProjection } from './billing.projection.js';
import { getBilling } from './billing.queries.js';

describe('billing read model (PostgreSQL)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness('rm_billing', [billingProjection]);
    await harness.append([
      workspaceCreated('w1', at(0), 1),
      event('FreeAllowanceUsed', { workspaceId: 'w1', candidateId: 'c1', resultId: 'r1', usedAt: at(1) }),
      event('CandidateCharged', { workspaceId: 'w1', candidateId: 'c2', resultId: 'r2', chargedAt: at(2) }),
      event('CandidateCharged', { workspaceId: 'w1', candidateId: 'c3', resultId: 'r5', chargedAt: at(3) }),
    ]);
    await harness.project();
  });
  afterAll(() => harness.close());

  it('lists the free allowance and the charged candidates', async () => {
    expect(await getBilling(harness.documentStore, 'w1')).toEqual({
      workspaceId: 'w1', freeAllowance: 1,
      billedCandidates: [{ candidateId: 'c2', resultId: 'r2', chargedAt: at(2) }, { candidateId: 'c3', resultId: 'r5', chargedAt: at(3) }],
    });
    expect(await getBilling(harness.documentStore, 'w2')).toBeNull();
  });

  it('changes nothing when the events are replayed', async () => {
    const before = await harness.all('billing');
    await harness.project({ startAfter: null });
    expect(await harness.all('billing')).toEqual(before);
  });
});
