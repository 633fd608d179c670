import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type LinkKind, type RegistrationVia, assessmentStream, candidateEmailStream, candidateStream, decideRegistration, initialCandidateState, notFound, parseLink,
  requireAssessment, resolveRegistrant,
} from '#domain';
import { ids } from '#platform';
import type { ServiceConfig } from '#platform';
import { EventWriter } from '../shared/event-writer.js';
import { assessmentFold, candidateEmailFold, candidateFold } from '../shared/folds.js';
import { CONFIG } from '../shared/tokens.js';
import type { RequestContext } from '../shared/ports.js';

export interface RegistrationResult { created: boolean; candidateId: string; assessmentId: string }

/**
 * What the internal application's DTO typed: a personal invitation link, or the sign-up link with the
 * person (address normalized and valid, names storable, absent ones empty). Whether a link is one the
 * service issued, and for which assessment, is found here (404).
 */
export type Registration =
  | { invitationUrl: string }
  | { inviteUrl: string; email: string; firstName: string; surname: string };

export class RegisterCandidate extends Command<RegistrationResult> {
  constructor(readonly registration: Registration, readonly context: RequestContext) { super(); }
}

const readLink = (value: string, kind: LinkKind, appUrl: string): { assessmentId: string; token: string } => {
  const link = parseLink(value, kind, appUrl);
  if (!link) throw notFound(kind === 'invite' ? 'invite link' : 'invitation');
  return link;
};

const viaOf = (registration: Registration, appUrl: string): { assessmentId: string; via: RegistrationVia } => {
  if ('invitationUrl' in registration) {
    const { assessmentId, token } = readLink(registration.invitationUrl, 'invitation', appUrl);
    return { assessmentId, via: { kind: 'invitation', token } };
  }
  const { inviteUrl, email, firstName, surname } = registration;
  const { assessmentId, token } = readLink(inviteUrl, 'invite', appUrl);
  return { assessmentId, via: { kind: 'inviteUrl', token, email, firstName, surname } };
};

@CommandHandler(RegisterCandidate)
export class RegisterCandidateHandler implements ICommandHandler<RegisterCandidate> {
  constructor(private readonly writer: EventWriter, @Inject(CONFIG) private readonly config: ServiceConfig) {}

  async execute({ registration, context }: RegisterCandidate): Promise<RegistrationResult> {
    const { assessmentId, via } = viaOf(registration, this.config.appUrl);
    const streamId = assessmentStream(assessmentId);
    return this.writer.handle(streamId, context, async (streams, now) => {
      const assessment = requireAssessment(await streams.load(streamId, assessmentFold));
      const registrant = resolveRegistrant(assessment, via);
      const emailStreamId = candidateEmailStream(assessment.workspaceId, registrant.email);
      let emailState = await streams.load(emailStreamId, candidateEmailFold);
      const claimedId = emailState.claim?.candidateId;
      let candidate = claimedId ? await streams.load(candidateStream(claimedId), candidateFold) : initialCandidateState();
      // The registry named a candidate deleted after it was read (the deletion releases the address in
      // the same append): decided as a new person; the append, expecting the registry at the revision
      // read, conflicts and the decision is taken again on a fresh read.
      if (candidate.status === 'deleted') {
        emailState = { claim: null };
        candidate = initialCandidateState();
      }
      const decision = decideRegistration({ assessment, registrant, emailState, candidate, newCandidateId: ids.candidate(), now });
      return {
        appends: [
          { streamId: emailStreamId, events: decision.emailEvents },
          { streamId: candidateStream(decision.candidateId), events: decision.candidateEvents },
          { streamId, events: decision.assessmentEvents },
        ],
        // 201 for a new registration (a new candidate or a known one joining this assessment), 200 when already on it.
        answer: { created: decision.candidateEvents.length > 0, candidateId: decision.candidateId, assessmentId },
      };
    });
  }
}
