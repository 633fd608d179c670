import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  CATALOGUE, type InvitationOutcome, type Mode, assessmentStream, candidateEmailStream, decideAssessment, decideInvitations, invitationAddresses, notFound,
  requireAssessment, sandboxPlacesLeft, workspaceStream,
} from '#domain';
import { ids } from '#platform';
import { EventWriter, streamRead } from '../shared/event-writer.js';
import { assessmentFold, candidateEmailFold, workspaceFold } from '../shared/folds.js';
import { type RequestContext, systemContext } from '../shared/ports.js';

export interface InvitationResult {
  assessmentId: string;
  outcomes: InvitationOutcome[];
}

export class InviteCandidates extends Command<InvitationResult> {
  constructor(
    readonly workspaceId: string,
    readonly assessmentId: string,
    readonly mode: Mode,
    /** The envelope is checked at the edge (1 to MAX_CANDIDATES_PER_REQUEST entries); each entry is judged by the decider. */
    readonly candidates: readonly unknown[],
    readonly context: RequestContext,
  ) { super(); }
}

/**
 * Invitations are decided on the assessment stream (one invitation per address and assessment);
 * a sandbox request also uses places of the workspace's allowance, appended atomically with them.
 */
@CommandHandler(InviteCandidates)
export class InviteCandidatesHandler implements ICommandHandler<InviteCandidates> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ workspaceId, assessmentId, mode, candidates, context }: InviteCandidates): Promise<InvitationResult> {
    const streamId = assessmentStream(assessmentId);
    const addresses = invitationAddresses(candidates);
    // The people's keys are made while the decision reads its streams, not after it.
    this.writer.expectPeople(addresses.map((email) => ({ workspaceId, email })));
    const outcomes = await this.writer.handle(streamId, context, async (streams, now) => {
      // Loaded together: one read for the three kinds of stream where the store allows it.
      const [assessmentState, workspace, registries] = await Promise.all([
        streams.load(streamId, assessmentFold),
        streams.load(workspaceStream(workspaceId), workspaceFold),
        Promise.all(addresses.map((email) => streams.load(candidateEmailStream(workspaceId, email), candidateEmailFold))),
      ]);
      const assessment = requireAssessment(assessmentState, workspaceId);
      if (workspace.status !== 'active') throw notFound('workspace');
      const knownCandidates: Record<string, { candidateId: string; mode: Mode }> = {};
      addresses.forEach((email, index) => {
        const claim = registries[index]?.claim;
        if (claim) knownCandidates[email] = claim;
      });
      const decision = decideInvitations({
        type: 'InviteCandidates', mode, candidates, workspaceVerified: workspace.verified, sandboxPlacesLeft: sandboxPlacesLeft(workspace, now),
        knownCandidates, newInvitation: () => ({ invitationId: ids.invitation(), invitationToken: ids.token() }), metadata: { now },
      }, assessment);
      return { appends: [{ streamId, events: decision.events }, { streamId: workspaceStream(workspaceId), events: decision.workspaceEvents }], answer: decision.outcomes };
    }, [
      // Read with those of the other invitations of its batch.
      streamRead(streamId, assessmentFold), streamRead(workspaceStream(workspaceId), workspaceFold),
      ...addresses.map((email) => streamRead(candidateEmailStream(workspaceId, email), candidateEmailFold)),
    ]);
    return { assessmentId, outcomes };
  }
}

/**
 * An invitation's write path but the commit (EventWriter.rehearse): one made-up address invited to the first
 * of `recent` (assessments of the log, each loaded), else to a made-up assessment created with it, in one
 * append the store rolls back. Run before a process serves (docs/architecture.md, "Before the first request").
 */
export const rehearseInvitation = (writer: EventWriter, recent: readonly { workspaceId: string; assessmentId: string }[] = []): Promise<void> => {
  const latest = recent[0];
  const workspaceId = latest?.workspaceId ?? ids.workspace();
  const assessmentId = latest?.assessmentId ?? ids.assessment();
  const streamId = assessmentStream(assessmentId);
  const test = CATALOGUE[0];
  return writer.rehearse(systemContext(ids.request()), async (streams, now) => {
    const [loaded] = await Promise.all([streams.load(streamId, assessmentFold), ...recent.slice(1).map((other) => streams.load(assessmentStream(other.assessmentId), assessmentFold))]);
    const created = latest !== undefined ? [] : decideAssessment({
      type: 'CreateAssessment', assessmentId, workspaceId, inviteToken: ids.token(), name: 'Warm-up', tests: test === undefined ? [] : [test.slug], deadline: null,
      lookupTest: () => (test === undefined ? undefined : { slug: test.slug, name: test.name, type: 'library' }), metadata: { now },
    }, loaded);
    const assessment = requireAssessment(created.reduce(assessmentFold.evolve, loaded), workspaceId);
    const invited = decideInvitations({
      type: 'InviteCandidates', workspaceId, mode: 'live', candidates: [{ email: `warm-up-${ids.invitation().toLowerCase()}@example.com`, firstName: 'Warm', surname: 'Up' }],
      workspaceVerified: true, sandboxPlacesLeft: 0, knownCandidates: {},
      newInvitation: () => ({ invitationId: ids.invitation(), invitationToken: ids.token() }), metadata: { now },
    }, assessment);
    return { appends: [{ streamId, events: [...created, ...invited.events] }], answer: undefined };
  });
};
