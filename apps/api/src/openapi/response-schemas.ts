import { MAX_TESTS_PER_ASSESSMENT, TEST_FORMATS, TEST_TYPES } from '#domain';
import { RESULT_FIELDS, VIEW_SCHEMAS, resultList, schemaParts } from '#http';

/*
 * The public API's answers as JSON Schema 2020-12 (request shapes come from the DTO classes); the
 * end-to-end suites validate every answer they receive against them.
 */

type Schema = Record<string, unknown>;
const { ref, text, time, nullable, object } = schemaParts;

/** A set the contract does not close: text with today's values as examples, never an `enum` a generated client would break on. */
const openSet = (description: string, known: readonly string[]): Schema => ({
  type: 'string', description: `${description}. Values today: ${known.map((value) => `\`${value}\``).join(', ')}; more may be added, so treat an unknown one as text.`, examples: [...known],
});

export const RESPONSE_SCHEMAS: Record<string, Schema> = {
  ...VIEW_SCHEMAS,
  Workspace: object({
    workspace: object({ id: text('Workspace id'), name: text('Workspace name') }),
    mode: { type: 'string', enum: ['live', 'sandbox'], description: 'Mode of the key used' },
    sandbox: object({
      limit: { type: 'integer', description: 'Test-candidate allowance (25)' },
      windowDays: { type: 'integer', description: 'Window of the allowance in days (30)' },
      remaining: { type: 'integer', description: 'Test candidates still creatable in the window' },
    }, "The workspace's sandbox allowance (also shown to live keys)"),
  }),
  Test: object({
    slug: text('Identifier used in assessment creation'),
    name: text('Display name'),
    type: openSet('Test type (filterable)', TEST_TYPES),
    format: openSet('Test format', TEST_FORMATS),
    minutes: { type: 'integer', description: 'Length in minutes' },
    timed: { type: 'boolean' },
    questionCount: { type: 'integer' },
    description: text(),
  }),
  InvitationEntry: object({
    email: text('Address as used: trimmed and lower case'),
    firstName: text('As sent ("" when absent or not text)'),
    surname: text('As sent ("" when absent or not text)'),
    status: { type: 'string', enum: ['invited', 'already_invited', 'failed'] },
    reason: {
      type: ['string', 'null'],
      enum: ['already_invited', 'already_candidate', 'invalid_email', 'invalid_name', 'invalid_entry', 'live_candidate', 'sandbox_candidate', null],
    },
    candidateId: nullable('string', 'Set when reason is `already_candidate`'),
    invitationUrl: nullable('string', 'Personal link of the invitation (new or existing)', { format: 'uri' }),
  }),
  InvitationMeta: object({
    assessmentId: text(),
    invited: { type: 'integer', minimum: 0 },
    alreadyInvited: { type: 'integer', minimum: 0 },
    failed: { type: 'integer', minimum: 0 },
  }),
  // API 1.2.0: a row of GET /v1/assessments/{assessmentId}/invitations.
  Invitation: object({
    email: text('As the invitation entry recorded it (trimmed, lower case)'),
    firstName: text('As sent ("" when absent)'),
    surname: text('As sent ("" when absent)'),
    status: { type: 'string', enum: ['pending', 'registered'], description: '`pending`: not registered yet; `registered`: the person registered through the invitation' },
    invitedAt: time('When the invitation was created'),
    invitationUrl: nullable('string', 'The personal link while `pending`; null once `registered`', { format: 'uri' }),
    candidateId: nullable('string', 'Set once `registered`'),
  }, 'One invitation of the assessment'),
  CandidateRef: object({ id: text(), email: text(), firstName: text(), surname: text() }),
  AssessmentRef: object({ id: text(), name: text() }),
  ResultListItem: object({
    ...RESULT_FIELDS, candidate: ref('CandidateRef'), assessment: ref('AssessmentRef'), reportUrl: { type: 'string', format: 'uri' },
  }),
  Completion: object({
    id: text('Candidate id and assessment id joined by a colon; never changes'),
    candidate: ref('CandidateRef'),
    assessment: ref('AssessmentRef'),
    completedAt: time('Time the last test was finished'),
    updatedAt: time('The later of `completedAt` and the latest `unlockedAt` of its results: an unlock moves it, `completedAt` never moves. `updated_since` filters on it'),
    unlocked: { type: 'boolean' },
    results: resultList(),
    reportUrl: { type: 'string', format: 'uri' },
  }),
  CatalogueMeta: object({ total: { type: 'integer', description: 'Number of tests in the list' } }),
  PageMeta: object({ nextCursor: nullable('string', 'Pass unchanged as `cursor` for the next page; null at the end') }),
  EventPageMeta: object({
    nextCursor: text('Always a string: the place after the last row returned (or where the request stood when none came). Store it; pass it unchanged as `cursor` to read on, now or later'),
    hasMore: { type: 'boolean', description: 'Whether more rows exist now (read on at once); false: poll later with `nextCursor`' },
  }),
  LegacyResult: object({
    id: text(), test_slug: text(), test_name: text(), completed_at: { type: 'string', format: 'date-time' }, unlocked: { type: 'boolean' },
    score_percentage: nullable('number', 'null until unlocked'),
  }),
  LegacyAssessment: object({
    id: text(), name: text(), status: { type: 'string', enum: ['not_started', 'in_progress', 'completed'] },
    completed_at: nullable('string', 'When every test was finished', { format: 'date-time' }),
    results: { type: 'array', items: ref('LegacyResult'), maxItems: MAX_TESTS_PER_ASSESSMENT },
  }),
  LegacyCandidate: object({
    id: text(), email: text(), first_name: text(), last_name: text(), created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' }, report_url: { type: 'string', format: 'uri' },
    assessments: { type: 'array', items: ref('LegacyAssessment') },
  }),
  LegacyCandidatePage: object({
    count: { type: 'integer', description: 'Total number of rows' },
    next: nullable('string', 'Absolute URL of the next page, on the base the request used', { format: 'uri' }),
    previous: nullable('string', 'Absolute URL of the previous page', { format: 'uri' }),
    results: { type: 'array', items: ref('LegacyCandidate'), maxItems: 100, description: 'At most `per_page` rows' },
  }),
  LegacyError: object({ status: text('The HTTP status, as text'), code: text('A message for people') }),
};

/** `{ data }` / `{ data, meta }` around a component. */
export const single = (name: string): Schema => object({ data: ref(name) });
export const list = (name: string, meta?: string): Schema =>
  object({ data: { type: 'array', items: ref(name) }, ...(meta ? { meta: ref(meta) } : {}) });

/** The error shape with the codes one operation can answer with one status. */
export const errorSchema = (codes: readonly string[]): Schema => object({
  error: object({ code: { type: 'string', enum: [...codes] }, message: text('For people; may change') }),
});
