import type { DomainEvent } from '#domain';
import {
  assessment, assessmentCreated, at, candidate, candidateCreated, deleted, event, fullJourney, registered, started, testCompleted, workspaceCreated,
} from './domain-fixtures.js';

/**
 * A workspace with every kind of event, for the tests that compare whole read models (replay,
 * rebuild): keys, webhook, sandbox use, custom test, three assessments, live and test candidates
 * at every stage, billing, a closed assessment and a deleted test candidate.
 */
export const busyWorkspace = (workspaceId: string, candidates: number): DomainEvent[] => {
  const assessments = [assessment(workspaceId, `${workspaceId}-a1`), assessment(workspaceId, `${workspaceId}-a2`, ['typing']), assessment(workspaceId, `${workspaceId}-a3`, ['numerical', 'verbal', 'logic'])];
  const events: DomainEvent[] = [
    workspaceCreated(workspaceId, at(0), 2),
    event('WorkspaceVerified', { workspaceId, verifiedAt: at(1) }),
    event('ApiKeyIssued', { workspaceId, apiKeyId: `${workspaceId}-k1`, mode: 'live', key: `${workspaceId}-live`, secretHash: 'h1', issuedAt: at(1) }),
    event('ApiKeyIssued', { workspaceId, apiKeyId: `${workspaceId}-k2`, mode: 'sandbox', key: `SBX${workspaceId}`, secretHash: 'h2', issuedAt: at(1) }),
    event('ApiKeyRegenerated', { workspaceId, apiKeyId: `${workspaceId}-k1`, mode: 'live', previousKey: `${workspaceId}-live`, key: `${workspaceId}-live2`, secretHash: 'h3', regeneratedAt: at(2) }),
    event('WebhookConfigured', { workspaceId, url: 'https://hooks.example.com/x', events: ['testCompleted', 'resultUnlocked'], encryptedSecret: 'enc1', configuredAt: at(2) }),
    event('CustomTestCreated', { workspaceId, slug: `${workspaceId}-custom`, name: 'Ours', minutes: 15, questionCount: 12, createdAt: at(2) }),
    ...assessments.map((a, i) => assessmentCreated(a, at(3 + i))),
    // Invitations nobody used: one stays pending on each assessment but the first, where it is withdrawn.
    ...assessments.map((a, i) => event('CandidateInvited', {
      assessmentId: a.id, workspaceId, assessmentName: a.name, deadline: null, invitationId: `${a.id}-pending`, invitationToken: `tok-${a.id}-pending`,
      mode: 'sandbox', email: `pending-${i}@example.com`, firstName: 'Pending', surname: 'Person', invitedAt: at(6),
    })),
    event('InvitationWithdrawn', { assessmentId: `${workspaceId}-a1`, workspaceId, email: 'pending-0@example.com', invitationId: `${workspaceId}-a1-pending`, withdrawnAt: at(7) }),
  ];
  for (let i = 0; i < candidates; i += 1) {
    const mode = i % 3 === 0 ? 'sandbox' : 'live';
    const person = candidate(workspaceId, `${workspaceId}-c${i}`, mode);
    const target = assessments[i % assessments.length] ?? assessments[0];
    if (target === undefined) continue;
    const minute = 10 + i * 20;
    if (mode === 'sandbox') events.push(event('SandboxPlacesUsed', { workspaceId, assessmentId: target.id, places: 1, usedAt: at(minute) }));
    events.push(candidateCreated(person, at(minute)));
    const firstTest = target.tests[0];
    if (i % 4 === 1 && firstTest !== undefined) {
      events.push(...registered(person, target, at(minute + 1)), started(person, target, at(minute + 2)), testCompleted(person, target, `${person.id}-r0`, firstTest, at(minute + 3)));
    } else {
      events.push(...fullJourney(person, target, minute + 1));
      if (mode === 'live') events.push(event('CandidateCharged', { workspaceId, candidateId: person.id, resultId: `${person.id}-${target.id}-r0`, chargedAt: at(minute + 11) }));
    }
    if (i === 3 && mode === 'sandbox') {
      events.push(...deleted(person, [target], target.tests.map((_, r) => `${person.id}-${target.id}-r${r}`), at(minute + 15)));
    }
  }
  const closing = assessments[1];
  if (closing !== undefined) events.push(event('AssessmentClosed', { assessmentId: closing.id, workspaceId, closedAt: at(10 + candidates * 20) }));
  return events;
};
