import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type CandidateEmailEvent, type CandidateEvent, type CandidateState, type ExpectedRevisionLike, type RegistrationVia, assessmentStream,
  candidateEmailStream, candidateStream, decideRegistration, evolveAssessment, evolveCandidate, evolveCandidateEmail, initialAssessmentState,
  initialCandidateEmailState, initialCandidateState, isPlainObject, notFound, requireAssessment, resolveRegistrant, validationFailed,
} from '../../../domain/src/index.js';
import { ids } from '../../../platform/src/ids/ids.js';
import { EventWriter } from '../shared/event-writer.js';
import type { RequestContext } from '../shared/ports.js';

export interface RegistrationResult { created: boolean; candidateId: string; assessmentId: string }

export class RegisterCandidate extends Command<RegistrationResult> {
  constructor(readonly body: unknown, readonly context: RequestContext) { super(); }
}

/** `…/invitations/{assessmentId}/{token}` and `…/join/{assessmentId}/{token}`: the links the service hands out. */
const parseLink = (value: unknown, kind: 'invitations' | 'join'): { assessmentId: string; token: string } => {
  if (typeof value !== 'string') throw validationFailed(`${kind === 'join' ? 'inviteUrl' : 'invitationUrl'} must be a link the service issued`);
  let path: string[];
  try {
    path = new URL(value).pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw validationFailed('the link is not a URL');
  }
  const [assessmentId, token] = path.slice(-2);
  if (path.length < 3 || path.at(-3) !== kind || !assessmentId || !token) throw notFound(kind === 'join' ? 'invite link' : 'invitation');
  return { assessmentId, token };
};

const parseVia = (body: unknown): { assessmentId: string; via: RegistrationVia } => {
  if (!isPlainObject(body)) throw validationFailed('body must be a JSON object');
  if (body.invitationUrl !== undefined) {
    const { assessmentId, token } = parseLink(body.invitationUrl, 'invitations');
    return { assessmentId, via: { kind: 'invitation', token } };
  }
  if (body.inviteUrl === undefined) throw validationFailed('invitationUrl, or inviteUrl with email, is required');
  const { assessmentId, token } = parseLink(body.inviteUrl, 'join');
  return { assessmentId, via: { kind: 'inviteUrl', token, email: body.email, firstName: body.firstName, surname: body.surname } };
};

@CommandHandler(RegisterCandidate)
export class RegisterCandidateHandler implements ICommandHandler<RegisterCandidate> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ body, context }: RegisterCandidate): Promise<RegistrationResult> {
    const { assessmentId, via } = parseVia(body);
    const streamId = assessmentStream(assessmentId);
    const { result, position } = await this.writer.decide(streamId, async () => {
      const assessmentLoaded = await this.writer.load(streamId, initialAssessmentState, evolveAssessment);
      const assessment = requireAssessment(assessmentLoaded.state);
      const registrant = resolveRegistrant(assessment, via);
      const emailStreamId = candidateEmailStream(assessment.workspaceId, registrant.email);
      const emailLoaded = await this.writer.load<ReturnType<typeof initialCandidateEmailState>, CandidateEmailEvent>(emailStreamId, initialCandidateEmailState, evolveCandidateEmail);
      const claimedId = emailLoaded.state.claim?.candidateId;
      const candidateLoaded: { state: CandidateState; revision: ExpectedRevisionLike } = claimedId
        ? await this.writer.load<CandidateState, CandidateEvent>(candidateStream(claimedId), initialCandidateState, evolveCandidate)
        : { state: initialCandidateState(), revision: 'no_stream' };
      const now = await this.writer.now();
      const decision = decideRegistration({ assessment, registrant, emailState: emailLoaded.state, candidate: candidateLoaded.state, newCandidateId: ids.candidate(), now });
      const appended = await this.writer.append([
        { streamId: emailStreamId, expectedRevision: emailLoaded.revision, events: decision.emailEvents },
        { streamId: candidateStream(decision.candidateId), expectedRevision: candidateLoaded.revision, events: decision.candidateEvents },
        { streamId, expectedRevision: assessmentLoaded.revision, events: decision.assessmentEvents },
      ], context, now);
      // 201 for a new registration (a new candidate or a known one joining this assessment), 200 when already on it.
      return { result: { created: decision.candidateEvents.length > 0, candidateId: decision.candidateId, assessmentId }, position: appended };
    });
    await this.writer.settle(position);
    return result;
  }
}
