import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type CandidateEmailEvent, type InvitationOutcome, type Mode, type WorkspaceEvent, assessmentStream, candidateEmailStream, decideInvitations,
  evolveAssessment, evolveCandidateEmail, evolveWorkspace, initialAssessmentState, initialCandidateEmailState, initialWorkspaceState, isPlainObject,
  isValidEmail, normalizeEmail, notFound, requireAssessment, sandboxPlacesLeft, workspaceStream,
} from '#domain';
import { ids } from '#platform';
import { EventWriter } from '../shared/event-writer.js';
import type { RequestContext } from '../shared/ports.js';

export interface InvitationResult {
  assessmentId: string;
  outcomes: InvitationOutcome[];
}

export class InviteCandidates extends Command<InvitationResult> {
  constructor(
    readonly workspaceId: string,
    readonly assessmentId: string,
    readonly mode: Mode,
    /** The envelope is checked at the edge (1 to 100 entries); each entry is judged by the decider. */
    readonly candidates: readonly unknown[],
    readonly context: RequestContext,
  ) { super(); }
}

/** The valid, normalized addresses of a request: whose registry streams the decision needs. */
const addressesOf = (candidates: unknown): string[] => {
  if (!Array.isArray(candidates) || candidates.length > 100) return [];
  const emails = candidates.filter(isPlainObject).map((entry) => normalizeEmail(entry.email)).filter((email): email is string => email !== null && isValidEmail(email));
  return [...new Set(emails)];
};

/**
 * Invitations are decided on the assessment stream (one invitation per address and assessment);
 * a sandbox request also uses places of the workspace's allowance, appended atomically with them.
 */
@CommandHandler(InviteCandidates)
export class InviteCandidatesHandler implements ICommandHandler<InviteCandidates> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ workspaceId, assessmentId, mode, candidates, context }: InviteCandidates): Promise<InvitationResult> {
    const streamId = assessmentStream(assessmentId);
    const addresses = addressesOf(candidates);
    // The people's keys are made while the decision reads its streams, not after it.
    this.writer.expectPeople(addresses.map((email) => ({ workspaceId, email })));
    // Their registries are read now, with those of concurrent requests, not one decision after another in the batch.
    this.writer.prefetch(addresses.map((email) => candidateEmailStream(workspaceId, email)), initialCandidateEmailState, evolveCandidateEmail);
    const outcomes = await this.writer.decide(streamId, async (batch) => {
      // Read together: one round trip for the three kinds of stream where the store allows it.
      const [assessmentLoaded, workspaceLoaded, registries] = await Promise.all([
        batch.load(streamId, initialAssessmentState, evolveAssessment),
        batch.load(workspaceStream(workspaceId), initialWorkspaceState, evolveWorkspace),
        batch.loadMany<ReturnType<typeof initialCandidateEmailState>, CandidateEmailEvent>(
          addresses.map((email) => candidateEmailStream(workspaceId, email)), initialCandidateEmailState, evolveCandidateEmail,
        ),
      ]);
      const assessment = requireAssessment(assessmentLoaded.state, workspaceId);
      if (workspaceLoaded.state.status !== 'active') throw notFound('workspace');
      const workspace = workspaceLoaded.state;
      const knownCandidates: Record<string, { candidateId: string; mode: Mode }> = {};
      for (const email of addresses) {
        const claim = registries.get(candidateEmailStream(workspaceId, email))?.state.claim;
        if (claim) knownCandidates[email] = claim;
      }
      const now = await batch.now();
      const decision = decideInvitations({
        type: 'InviteCandidates', mode, candidates, workspaceVerified: workspace.verified, sandboxPlacesLeft: sandboxPlacesLeft(workspace, now),
        knownCandidates, newInvitation: () => ({ invitationId: ids.invitation(), invitationToken: ids.token() }), metadata: { now },
      }, assessment);
      const placesUsed: WorkspaceEvent[] = mode === 'sandbox' && decision.events.length > 0
        ? [{ type: 'SandboxPlacesUsed', data: { workspaceId, assessmentId, places: decision.events.length, usedAt: now } }]
        : [];
      batch.append([
        { streamId, expectedRevision: assessmentLoaded.revision, events: decision.events },
        { streamId: workspaceStream(workspaceId), expectedRevision: workspaceLoaded.revision, events: placesUsed },
      ], context, now);
      return decision.outcomes;
    });
    return { assessmentId, outcomes };
  }
}
