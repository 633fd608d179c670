import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { assessmentStream, candidateEmailStream, candidateStream, workspaceStream } from '#domain';
import {
  assessmentCreated, candidateAdded, candidateCreated, candidateInvited, candidateRegistered, emailClaimed, testCompleted, workspaceCreated,
} from '#domain/testing/decider-fixtures.js';
import { loadConfig } from '#platform';
import { AddTestToAssessment, AddTestToAssessmentHandler, CloseAssessment, CloseAssessmentHandler } from './assessments/assessment.handlers.js';
import { DeleteCandidate, DeleteCandidateHandler } from './candidates/delete-candidate.handler.js';
import { InviteCandidates, InviteCandidatesHandler } from './invitations/invite-candidates.handler.js';
import { RegisterCandidate, RegisterCandidateHandler } from './registrations/register-candidate.handler.js';
import { UnlockResult, UnlockResultHandler } from './results/unlock-result.handler.js';
import { type HandlerHarness, startHandlerHarness } from './test-support/handler-harness.js';

const APP_URL = loadConfig({}).appUrl;

/** A verified workspace with one assessment, under ids of their own (the spec shares one store). */
const world = () => {
  const workspaceId = `ws-${randomUUID()}`;
  const assessmentId = `as-${randomUUID()}`;
  const inWorkspace = { workspaceId, assessmentId };
  return {
    workspaceId, assessmentId, inWorkspace,
    streams: {
      [workspaceStream(workspaceId)]: [workspaceCreated({ workspaceId, freeAllowance: 1 }), { type: 'WorkspaceVerified' as const, data: { workspaceId, verifiedAt: new Date(0).toISOString() } }],
      [assessmentStream(assessmentId)]: [assessmentCreated(inWorkspace)],
    },
  };
};

describe('command handlers on the real write path (embedded PGlite): given events, when a command, then events or a refusal', () => {
  let harness: HandlerHarness;
  beforeAll(async () => {
    harness = await startHandlerHarness();
  }, 60_000);
  afterAll(async () => {
    await harness.stop();
  });

  it('InviteCandidates: a live invitation records CandidateInvited on the assessment, and nothing on the workspace', async () => {
    const { workspaceId, assessmentId, streams } = world();
    await harness.given(streams);
    const handler = new InviteCandidatesHandler(harness.writer);
    const outcome = await harness.when(() => handler.execute(new InviteCandidates(workspaceId, assessmentId, 'live', [{ email: 'Ann@Example.com', firstName: 'Ann' }], harness.context)));
    expect(outcome).toEqual({ events: [{ streamId: assessmentStream(assessmentId), type: 'CandidateInvited', data: expect.objectContaining({ email: 'ann@example.com', mode: 'live', firstName: 'Ann' }) }] });
  });

  it('InviteCandidates: a sandbox invitation uses places of the workspace, appended with it', async () => {
    const { workspaceId, assessmentId, streams } = world();
    await harness.given(streams);
    const handler = new InviteCandidatesHandler(harness.writer);
    const outcome = await harness.when(() => handler.execute(new InviteCandidates(workspaceId, assessmentId, 'sandbox', [{ email: 'a@example.com' }, { email: 'b@example.com' }], harness.context)));
    expect(outcome).toEqual({
      events: [
        { streamId: assessmentStream(assessmentId), type: 'CandidateInvited', data: expect.objectContaining({ email: 'a@example.com', mode: 'sandbox' }) },
        { streamId: assessmentStream(assessmentId), type: 'CandidateInvited', data: expect.objectContaining({ email: 'b@example.com', mode: 'sandbox' }) },
        { streamId: workspaceStream(workspaceId), type: 'SandboxPlacesUsed', data: expect.objectContaining({ workspaceId, assessmentId, places: 2 }) },
      ],
    });
  });

  it('InviteCandidates: another workspace\'s assessment is not found, and a closed one refuses', async () => {
    const { workspaceId, assessmentId, streams } = world();
    await harness.given(streams);
    const handler = new InviteCandidatesHandler(harness.writer);
    const invite = (inWorkspace: string) => () => handler.execute(new InviteCandidates(inWorkspace, assessmentId, 'live', [{ email: 'c@example.com' }], harness.context));
    expect(await harness.when(invite(`ws-${randomUUID()}`))).toEqual({ refused: 'not_found' });
    await new CloseAssessmentHandler(harness.writer).execute(new CloseAssessment(assessmentId, harness.context));
    await harness.when(async () => undefined);
    expect(await harness.when(invite(workspaceId))).toEqual({ refused: 'assessment_closed' });
  });

  it('AddTestToAssessment: an unknown assessment is not found', async () => {
    const handler = new AddTestToAssessmentHandler(harness.writer);
    expect(await harness.when(() => handler.execute(new AddTestToAssessment(`as-${randomUUID()}`, { slug: 'ct_1' }, harness.context)))).toEqual({ refused: 'not_found' });
  });

  it('RegisterCandidate: through an invitation link, the address is claimed and the person created and added, atomically', async () => {
    const { workspaceId, assessmentId, inWorkspace, streams } = world();
    await harness.given({ ...streams, [assessmentStream(assessmentId)]: [assessmentCreated(inWorkspace), candidateInvited('dee@example.com', 'live', 1, { ...inWorkspace, invitationToken: `tok-${assessmentId}` })] });
    const handler = new RegisterCandidateHandler(harness.writer, loadConfig({}));
    const body = { invitationUrl: `${APP_URL}/invitations/${assessmentId}/tok-${assessmentId}` };
    const outcome = await harness.when(() => handler.execute(new RegisterCandidate(body, harness.context)));
    expect('events' in outcome && outcome.events).toHaveLength(4);
    expect(outcome).toEqual({
      events: expect.arrayContaining([
        { streamId: candidateEmailStream(workspaceId, 'dee@example.com'), type: 'CandidateEmailClaimed', data: expect.objectContaining({ email: 'dee@example.com', mode: 'live' }) },
        { streamId: expect.stringMatching(/^candidate-cand_/), type: 'CandidateCreated', data: expect.objectContaining({ email: 'dee@example.com' }) },
        { streamId: expect.stringMatching(/^candidate-cand_/), type: 'CandidateRegistered', data: expect.objectContaining({ assessmentId, invitationId: 'inv-1' }) },
        { streamId: assessmentStream(assessmentId), type: 'AssessmentCandidateAdded', data: expect.objectContaining({ email: 'dee@example.com', invitationId: 'inv-1' }) },
      ]),
    });
    // Registering again through the same link adds nothing.
    expect(await harness.when(() => handler.execute(new RegisterCandidate(body, harness.context)))).toEqual({ events: [] });
  });

  it('DeleteCandidate: the person leaves every assessment, naming the invitation they registered through, and their other invitations are withdrawn', async () => {
    const { workspaceId, assessmentId, inWorkspace, streams } = world();
    const otherId = `as-${randomUUID()}`;
    const candidateId = `cand-${randomUUID()}`;
    const email = 'eve@example.com';
    await harness.given({
      ...streams,
      [assessmentStream(assessmentId)]: [assessmentCreated(inWorkspace), candidateInvited(email, 'sandbox', 1, inWorkspace), candidateAdded(email, 'sandbox', candidateId, 'inv-1')],
      [assessmentStream(otherId)]: [assessmentCreated({ workspaceId, assessmentId: otherId }), candidateInvited(email, 'sandbox', 2, { workspaceId, assessmentId: otherId })],
      [candidateEmailStream(workspaceId, email)]: [emailClaimed(candidateId, email, 'sandbox')],
      [candidateStream(candidateId)]: [{ ...candidateCreated(candidateId, email, 'sandbox'), data: { ...candidateCreated(candidateId, email, 'sandbox').data, workspaceId } }, candidateRegistered(candidateId, 'sandbox', { ...inWorkspace, invitationId: 'inv-1' })],
    });
    const handler = new DeleteCandidateHandler(harness.writer, harness.lookups);
    const outcome = await harness.when(() => handler.execute(new DeleteCandidate(candidateId, harness.context)));
    expect(outcome).toEqual({
      events: expect.arrayContaining([
        { streamId: candidateStream(candidateId), type: 'CandidateDeleted', data: expect.objectContaining({ candidateId, assessmentIds: [assessmentId] }) },
        { streamId: candidateEmailStream(workspaceId, email), type: 'CandidateEmailReleased', data: expect.objectContaining({ candidateId }) },
        { streamId: assessmentStream(assessmentId), type: 'AssessmentCandidateRemoved', data: expect.objectContaining({ candidateId, invitationId: 'inv-1' }) },
        { streamId: assessmentStream(otherId), type: 'InvitationWithdrawn', data: expect.objectContaining({ invitationId: 'inv-2' }) },
      ]),
    });
    expect('events' in outcome && outcome.events).toHaveLength(4);
    expect(await harness.when(() => handler.execute(new DeleteCandidate(candidateId, harness.context)))).toEqual({ refused: 'not_found' });
  });

  it('UnlockResult: the first unlock uses the workspace\'s free allowance (not charged), a second one answers the first', async () => {
    const { workspaceId, inWorkspace, streams } = world();
    const candidateId = `cand-${randomUUID()}`;
    const resultId = `res-${randomUUID()}`;
    await harness.given({
      ...streams,
      [candidateStream(candidateId)]: [
        { ...candidateCreated(candidateId, 'fay@example.com', 'live'), data: { ...candidateCreated(candidateId, 'fay@example.com', 'live').data, workspaceId } },
        candidateRegistered(candidateId, 'live', inWorkspace),
        { ...testCompleted(candidateId, 'live', 'numerical-reasoning', resultId), data: { ...testCompleted(candidateId, 'live', 'numerical-reasoning', resultId).data, ...inWorkspace } },
      ],
    });
    const handler = new UnlockResultHandler(harness.writer, harness.lookups);
    const unlocked = await harness.when(() => handler.execute(new UnlockResult(resultId, harness.context)));
    expect('events' in unlocked && unlocked.events).toHaveLength(2);
    expect(unlocked).toEqual({
      events: expect.arrayContaining([
        { streamId: candidateStream(candidateId), type: 'ResultUnlocked', data: expect.objectContaining({ resultId, charged: false }) },
        { streamId: workspaceStream(workspaceId), type: 'FreeAllowanceUsed', data: expect.objectContaining({ workspaceId }) },
      ]),
    });
    expect(await harness.when(() => handler.execute(new UnlockResult(resultId, harness.context)))).toEqual({ events: [] });
    expect(await harness.when(() => handler.execute(new UnlockResult(`res-${randomUUID()}`, harness.context)))).toEqual({ refused: 'not_found' });
  });
});
