import type { AssessmentCreated } from '../events.js';
import { DomainError, validationFailed } from '../shared/errors.js';
import type { TestRef } from '../shared/types.js';
import { isCalendarDate, isStorableText, utcDay } from '../shared/validation.js';

export const MAX_TESTS_PER_ASSESSMENT = 10;
export const MAX_ASSESSMENT_NAME = 200;

export interface CreateAssessmentCommand {
  type: 'CreateAssessment';
  assessmentId: string;
  workspaceId: string;
  inviteToken: string;
  /** Trimmed by the edge, which has also checked the shapes below; the rules are re-asserted here as invariants. */
  name: string;
  /** Slugs in sitting order. */
  tests: readonly string[];
  /** `YYYY-MM-DD` or null for none. */
  deadline: string | null;
  metadata: { now: string };
}

/**
 * Creation is decided against the catalogue (a pure lookup passed in) rather than a stream: a new
 * assessment id has no history, and the stream is appended with `no_stream`.
 */
export const decideCreateAssessment = (
  command: CreateAssessmentCommand,
  lookupTest: (slug: string) => TestRef | undefined,
): AssessmentCreated[] => {
  const name = typeof command.name === 'string' ? command.name.trim() : '';
  if (name.length < 1 || name.length > MAX_ASSESSMENT_NAME || !isStorableText(name)) throw validationFailed(`name must be a string of 1 to ${MAX_ASSESSMENT_NAME} characters`);
  const slugs: unknown = command.tests;
  if (!Array.isArray(slugs) || slugs.length < 1 || slugs.length > MAX_TESTS_PER_ASSESSMENT || !slugs.every((slug) => typeof slug === 'string')) {
    throw validationFailed(`tests must be a list of 1 to ${MAX_TESTS_PER_ASSESSMENT} test slugs`);
  }
  if (new Set(slugs).size !== slugs.length) throw validationFailed('tests must not repeat a slug');
  const deadline: unknown = command.deadline ?? null;
  if (deadline !== null && (typeof deadline !== 'string' || !isCalendarDate(deadline) || deadline < utcDay(command.metadata.now))) {
    throw validationFailed('deadline must be a date YYYY-MM-DD, today or later, or null');
  }
  const tests: TestRef[] = [];
  for (const slug of command.tests) {
    const test = lookupTest(slug);
    if (!test) throw new DomainError('unknown_test', `unknown test slug: ${slug}`);
    tests.push(test);
  }
  return [{
    type: 'AssessmentCreated',
    data: { assessmentId: command.assessmentId, workspaceId: command.workspaceId, name, tests, deadline, inviteToken: command.inviteToken, createdAt: command.metadata.now },
  }];
};

