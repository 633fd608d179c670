import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type LinkKind, type RegistrationVia, assessmentStream, candidateEmailStream, candidateStream, decideRegistration, initialCandidateState, isPlainObject, notFound,
  parseLink, requireAssessment, resolveRegistrant, validationFailed,
} from '#domain';
import { ids } from '#platform';
import type { ServiceConfig } from '#platform';
import { EventWriter } from '../shared/event-writer.js';
import { assessmentFold, candidateEmailFold, candidateFold } from '../shared/folds.js';
import { CONFIG } from '../shared/tokens.js';
import type { RequestContext } from '../shared/ports.js';

export interface RegistrationResult { created: boolean; candidateId: string; assessmentId: string }

export class RegisterCandidate extends Command<RegistrationResult> {
  constructor(readonly body: unknown, readonly context: RequestContext) { super(); }
}

const readLink = (value: unknown, kind: LinkKind, appUrl: string): { assessmentId: string; token: string } => {
  const name = kind === 'invite' ? 'inviteUrl' : 'invitationUrl';
  if (typeof value !== 'string') throw validationFailed(`${name} must be a link the service issued`);
  const link = parseLink(value, kind, appUrl);
  if (link === undefined) throw validationFailed(`${name} is not a URL`);
  if (link === null) throw notFound(kind === 'invite' ? 'invite link' : 'invitation');
  return link;
};

const parseVia = (body: unknown, appUrl: string): { assessmentId: string; via: RegistrationVia } => {
  if (!isPlainObject(body)) throw validationFailed('body must be a JSON object');
  if (body.invitationUrl !== undefined) {
    const { assessmentId, token } = readLink(body.invitationUrl, 'invitation', appUrl);
    return { assessmentId, via: { kind: 'invitation', token } };
  }
  if (body.inviteUrl === undefined) throw validationFailed('invitationUrl, or inviteUrl with email, is required');
  const { assessmentId, token } = readLink(body.inviteUrl, 'invite', appUrl);
  return { assessmentId, via: { kind: 'inviteUrl', token, email: body.email, firstName: body.firstName, surname: body.surname } };
};

@CommandHandler(RegisterCandidate)
export class RegisterCandidateHandler implements ICommandHandler<RegisterCandidate> {
  constructor(private readonly writer: EventWriter, @Inject(CONFIG) private readonly config: ServiceConfig) {}

  async execute({ body, context }: RegisterCandidate): Promise<RegistrationResult> {
    const { assessmentId, via } = parseVia(body, this.config.appUrl);
    const streamId = assessmentStream(assessmentId);
    return this.writer.handle(streamId, context, async (streams, now) => {
      const assessment = requireAssessment(await streams.load(streamId, assessmentFold));
      const registrant = resolveRegistrant(assessment, via);
      const emailStreamId = candidateEmailStream(assessment.workspaceId, registrant.email);
      let emailState = await streams.load(emailStreamId, candidateEmailFold);
      const claimedId = emailState.claim?.candidateId;
      let candidate = claimedId ? await streams.load(candidateStream(claimedId), candidateFold) : initialCandidateState();
      // The registry named a candidate deleted after it was read (the deletion releases the address in
      // the same append): decided as the new person the address now is; the append, expecting the
      // registry at the revision read, conflicts and the decision is taken again on a fresh read.
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
