export type Mode = 'live' | 'sandbox';

export type TestType = 'library' | 'custom';

/** A test as an assessment lists it (API 2.3 `tests[]`). */
export interface TestRef {
  slug: string;
  name: string;
  type: TestType;
}

/** What finishing a test records; hidden while the result is locked (API 2.6). */
export interface ResultScores {
  scorePercentage: number;
  speedCompleted: number;
  questionsAnswered: number;
  questionsCorrect: number;
  questionsIncorrect: number;
  questionsTotal: number;
  result: string | null;
  scores: Record<string, unknown> | null;
}

/** The person as every payload shows them (webhooks, results, completions). */
export interface CandidateRef {
  id: string;
  email: string;
  firstName: string;
  surname: string;
}

export interface AssessmentRef {
  id: string;
  name: string;
}

export const WEBHOOK_EVENT_NAMES = [
  'candidateCreated',
  'candidateInvited',
  'assessmentStarted',
  'testCompleted',
  'assessmentCompleted',
  'resultUnlocked',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];
