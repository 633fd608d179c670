import {
  type AssessmentEvent, type AssessmentState, type CandidateEmailEvent, type CandidateEmailState, type CandidateEvent, type CandidateState, type StateSnapshots,
  type WorkspaceEvent, type WorkspaceState, assessmentSnapshots, evolveAssessment, evolveCandidate, evolveCandidateEmail, evolveWorkspace, initialAssessmentState,
  foldAssessment, initialCandidateEmailState, initialCandidateState, initialWorkspaceState,
} from '#domain';

/**
 * How the events of one kind of stream fold into the state its decisions read. One fold per kind
 * of stream, named: the state cache keeps a stream's state with the name of the fold that made it.
 * `snapshots`: the fold's states are kept as snapshots (long streams only). `foldAll`: a run of
 * events at once, as `evolve` one at a time would (long streams: the assessment's transient tables).
 */
export interface StreamFold<State, Event> {
  readonly name: string;
  readonly initial: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly foldAll?: (state: State, events: readonly Event[]) => State;
  readonly snapshots?: StateSnapshots<State>;
}

export const assessmentFold: StreamFold<AssessmentState, AssessmentEvent> = {
  name: 'assessment', initial: initialAssessmentState, evolve: evolveAssessment, foldAll: foldAssessment, snapshots: assessmentSnapshots,
};
export const workspaceFold: StreamFold<WorkspaceState, WorkspaceEvent> = { name: 'workspace', initial: initialWorkspaceState, evolve: evolveWorkspace };
export const candidateFold: StreamFold<CandidateState, CandidateEvent> = { name: 'candidate', initial: initialCandidateState, evolve: evolveCandidate };
export const candidateEmailFold: StreamFold<CandidateEmailState, CandidateEmailEvent> = {
  name: 'candidate-email', initial: initialCandidateEmailState, evolve: evolveCandidateEmail,
};

/**
 * Runs the assessment fold (a run at once, as a restart's catch-up does, then one event at a time,
 * as decisions do) and its snapshot codec on a made-up stream of a few hundred invitations, so that
 * the persistent maps' code is compiled before the first request: cold, a 3,000-invitation stream
 * folded several times slower than warm. Called at start, before the process listens; touches no store.
 */
export const warmUpFolds = (): void => {
  const invitations = 500;
  const events: AssessmentEvent[] = [{
    type: 'AssessmentCreated', data: { assessmentId: 'warm-up', workspaceId: 'warm-up', name: 'warm-up', tests: [], deadline: null, inviteToken: 'warm-up', createdAt: new Date(0).toISOString() },
  }];
  for (let index = 0; index < invitations; index += 1) {
    events.push({
      type: 'CandidateInvited',
      data: {
        assessmentId: 'warm-up', workspaceId: 'warm-up', assessmentName: 'warm-up', deadline: null, invitationId: `warm-up-${index}`, invitationToken: `warm-up-${index}`,
        mode: 'live', email: `warm-up-${index}@example.com`, firstName: '', surname: '', invitedAt: new Date(0).toISOString(),
      },
    });
  }
  const state = foldAssessment(assessmentFold.initial(), events);
  events.reduce(assessmentFold.evolve, assessmentFold.initial());
  const value = assessmentSnapshots.capture(state)?.();
  if (value !== undefined) assessmentSnapshots.decode(JSON.parse(JSON.stringify(value)));
};
