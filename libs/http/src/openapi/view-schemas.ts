import { MAX_TESTS_PER_ASSESSMENT } from '#domain';

/*
 * The views both ports answer (an assessment, a candidate, a result), as JSON Schema 2020-12: the
 * public and the internal documents take them from here, so the same answer is described once.
 */

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const text = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
export const time = (description: string): Schema => ({ type: 'string', format: 'date-time', description });
export const nullable = (type: string, description: string, extra: Schema = {}): Schema => ({ type: [type, 'null'], description, ...extra });
export const object = (properties: Record<string, Schema>, description?: string): Schema => ({
  type: 'object', required: Object.keys(properties), properties, ...(description ? { description } : {}),
});

/** One result per finished test, and an assessment has at most ten tests. */
export const resultList = (description?: string): Schema => ({ type: 'array', items: ref('Result'), maxItems: MAX_TESTS_PER_ASSESSMENT, ...(description ? { description } : {}) });

/** A result's own fields (a `/v1/results` row adds who and which assessment). */
export const RESULT_FIELDS: Record<string, Schema> = {
  id: text('Result id'),
  testSlug: text('Test slug'),
  testName: text('Test name'),
  testType: { type: 'string', enum: ['library', 'custom'] },
  completedAt: time('When the test was finished'),
  unlocked: { type: 'boolean', description: 'False until the result is unlocked in the application' },
  unlockedAt: nullable('string', 'Unlock time', { format: 'date-time' }),
  scorePercentage: nullable('number', 'Score in percent'),
  speedCompleted: nullable('integer', 'Seconds taken'),
  questionsAnswered: nullable('integer', 'Questions answered'),
  questionsCorrect: nullable('integer', 'Questions answered correctly'),
  questionsIncorrect: nullable('integer', 'Questions answered wrongly'),
  questionsTotal: nullable('integer', 'Questions in the test'),
  result: nullable('string', "The test's result label, where the test has one"),
  scores: nullable('object', 'Detailed scores where the test has them (for example personality traits)'),
};

export const VIEW_SCHEMAS: Record<string, Schema> = {
  AssessmentTest: object({ slug: text('Test slug'), name: text('Test name'), type: { type: 'string', enum: ['library', 'custom'] } }),
  Assessment: object({
    id: text('Assessment id'),
    name: text('Shown to candidates and in the app'),
    status: { type: 'string', enum: ['active', 'archived'], description: '`archived` once the assessment has been closed' },
    createdAt: time('Creation time'),
    deadline: nullable('string', 'Last day candidates may start (YYYY-MM-DD); null means none', { format: 'date' }),
    tests: { type: 'array', items: ref('AssessmentTest'), maxItems: MAX_TESTS_PER_ASSESSMENT, description: 'In sitting order' },
    candidateCount: {
      type: 'integer', minimum: 0,
      description: 'Registered candidates: of the mode of the key on the public API, live ones on the internal routes, those of `mode` in an as-of answer',
    },
    inviteUrl: nullable('string', 'Public sign-up link (open sign-up is always on)', { format: 'uri' }),
  }, 'The assessment as `GET /v1/assessments/{id}` answers it'),
  Result: object(RESULT_FIELDS, 'One completed test; while `unlocked` is false every score field is null'),
  CandidateAssessment: object({
    id: text('Assessment id'),
    name: text('Assessment name'),
    status: { type: 'string', enum: ['not_started', 'in_progress', 'completed'] },
    completedAt: nullable('string', 'When the candidate finished every test', { format: 'date-time' }),
    unlocked: { type: 'boolean', description: 'At least one result, and every result unlocked' },
    results: resultList('One per completed test'),
  }),
  Candidate: object({
    id: text('Candidate id'),
    email: text('Address, trimmed and lower case'),
    firstName: text('First name ("" when none was given)'),
    surname: text('Surname ("" when none was given)'),
    createdAt: time('Creation time'),
    updatedAt: time('Last change time'),
    reportUrl: { type: 'string', format: 'uri', description: "The candidate's report page (needs a sign-in)" },
    assessments: { type: 'array', items: ref('CandidateAssessment'), description: "Only the workspace's own assessments the candidate is registered on" },
  }, 'The candidate as `GET /v1/candidates/{id}` answers it'),
};
