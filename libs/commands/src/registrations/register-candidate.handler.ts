import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type CandidateEmailEvent, type CandidateEvent, type CandidateState, type ExpectedRevisionLike, type RegistrationVia, assessmentStream,
  candidateEmailStream, candidateStream, decideRegistration, evolveAssessment, evolveCandidate, evolveCandidateEmail, initialAssessmentState,
  initialCandidateEmailState, initialCandidateState, isPlainObject, type LinkKind, notFound, parseLink, requireAssessment, resolveRegistrant, validationFailed,
} from '#domain';
import { ids } from '#platform';
import type { ServiceConfig } from '#platform';
import { WrongExpectedRevisionError } from '#event-store';
import { EventWriter } from '../shared/event-writer.js';
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
    return this.writer.decide(streamId, async (batch) => {
      const assessmentLoaded = await batch.load(streamId, initialAssessmentState, evolveAssessment);
      const assessment = requireAssessment(assessmentLoaded.state);
      const registrant = resolveRegistrant(assessment, via);
      const emailStreamId = candidateEmailStream(assessment.workspaceId, registrant.email);
      const emailLoaded = await batch.load<ReturnType<typeof initialCandidateEmailState>, CandidateEmailEvent>(emailStreamId, initialCandidateEmailState, evolveCandidateEmail);
      const claimedId = emailLoaded.state.claim?.candidateId;
      const candidateLoaded: { state: CandidateState; revision: ExpectedRevisionLike } = claimedId
        ? await batch.load<CandidateState, CandidateEvent>(candidateStream(claimedId), initialCandidateState, evolveCandidate)
        : { state: initialCandidateState(), revision: 'no_stream' };
      // The registry still named a candidate whose deletion (which releases the address) came after
      // that read: decided again on a fresh read, never registered onto the deleted candidate.
      if (candidateLoaded.state.status === 'deleted') throw new WrongExpectedRevisionError(emailStreamId, emailLoaded.revision, 'no_stream');
      const now = await batch.now();
      const decision = decideRegistration({ assessment, registrant, emailState: emailLoaded.state, candidate: candidateLoaded.state, newCandidateId: ids.candidate(), now });
      batch.append([
        { streamId: emailStreamId, expectedRevision: emailLoaded.revision, events: decision.emailEvents },
        { streamId: candidateStream(decision.candidateId), expectedRevision: candidateLoaded.revision, events: decision.candidateEvents },
        { streamId, expectedRevision: assessmentLoaded.revision, events: decision.assessmentEvents },
      ], context, now);
      // 201 for a new registration (a new candidate or a known one joining this assessment), 200 when already on it.
      return { created: decision.candidateEvents.length > 0, candidateId: decision.candidateId, assessmentId };
    });
  }
}
