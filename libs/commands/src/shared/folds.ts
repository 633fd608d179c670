import {
  type AssessmentEvent, type AssessmentState, type CandidateEmailEvent, type CandidateEmailState, type CandidateEvent, type CandidateState, type StateSnapshots,
  type WorkspaceEvent, type WorkspaceState, assessmentSnapshots, evolveAssessment, evolveCandidate, evolveCandidateEmail, evolveWorkspace, initialAssessmentState,
  initialCandidateEmailState, initialCandidateState, initialWorkspaceState,
} from '#domain';

/**
 * How the events of one kind of stream fold into the state its decisions read. One fold per kind
 * of stream, named: the state cache keeps a stream's state with the name of the fold that made it.
 * `snapshots`: the fold's states are kept as snapshots (long streams only).
 */
export interface StreamFold<State, Event> {
  readonly name: string;
  readonly initial: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly snapshots?: StateSnapshots<State>;
}

export const assessmentFold: StreamFold<AssessmentState, AssessmentEvent> = {
  name: 'assessment', initial: initialAssessmentState, evolve: evolveAssessment, snapshots: assessmentSnapshots,
};
export const workspaceFold: StreamFold<WorkspaceState, WorkspaceEvent> = { name: 'workspace', initial: initialWorkspaceState, evolve: evolveWorkspace };
export const candidateFold: StreamFold<CandidateState, CandidateEvent> = { name: 'candidate', initial: initialCandidateState, evolve: evolveCandidate };
export const candidateEmailFold: StreamFold<CandidateEmailState, CandidateEmailEvent> = {
  name: 'candidate-email', initial: initialCandidateEmailState, evolve: evolveCandidateEmail,
};
