import type { WorkspaceEvent } from '../events.js';
import { DAY_MS, WORKSPACE_ID, at, existing, given, workspaceCreated } from '../testing/decider-fixtures.js';
import { workspaceDecider } from './workspace.decider.js';
import type { WorkspaceState } from './workspace.state.js';

const created = workspaceCreated();
const apiKeyIssued = (apiKeyId: string): WorkspaceEvent => ({
  type: 'ApiKeyIssued', data: { workspaceId: WORKSPACE_ID, apiKeyId, mode: 'live', key: `KEY-${apiKeyId}`, secretHash: 'hash', issuedAt: at(-DAY_MS) },
});
const liveKey = apiKeyIssued('key-1');
const sandboxKey = apiKeyIssued('key-2');

describe('workspace state as a value', () => {
  const charged = (candidateId: string): WorkspaceEvent =>
    ({ type: 'CandidateCharged', data: { workspaceId: WORKSPACE_ID, candidateId, resultId: `r-${candidateId}`, chargedAt: at(-DAY_MS) } });
  const placesUsed = (count: number): WorkspaceEvent =>
    ({ type: 'SandboxPlacesUsed', data: { workspaceId: WORKSPACE_ID, assessmentId: 'as-1', places: count, usedAt: at(-DAY_MS) } });
  const customTest: WorkspaceEvent = {
    type: 'CustomTestCreated', data: { workspaceId: WORKSPACE_ID, slug: 'ours', name: 'Ours', minutes: 20, questionCount: 10, createdAt: at(-DAY_MS) },
  };
  const seen = (state: WorkspaceState) => {
    const workspace = existing(state);
    return {
      apiKeys: [...workspace.apiKeys.keys()].sort(), customTests: [...workspace.customTests.keys()].sort(),
      sandboxUsage: workspace.sandboxUsage.toArray().map(({ count }) => count), countedCandidates: [...workspace.countedCandidates.entries()].sort(),
    };
  };

  it('never changes when evolved again, by any number of successors', () => {
    const held = given(workspaceDecider, [created, liveKey, charged('c-1'), placesUsed(2)]).state;
    const before = { apiKeys: ['key-1'], customTests: [], sandboxUsage: [2], countedCandidates: [['c-1', 'charged']] };
    expect(seen(held)).toEqual(before);
    const longer = [sandboxKey, charged('c-2'), placesUsed(3), customTest].reduce(workspaceDecider.evolve, held);
    const other = [charged('c-3')].reduce(workspaceDecider.evolve, held);
    expect(seen(held)).toEqual(before);
    expect(seen(longer)).toEqual({
      apiKeys: ['key-1', 'key-2'], customTests: ['ours'], sandboxUsage: [2, 3], countedCandidates: [['c-1', 'charged'], ['c-2', 'charged']],
    });
    expect(seen(other)).toEqual({ ...before, countedCandidates: [['c-1', 'charged'], ['c-3', 'charged']] });
  });
});
