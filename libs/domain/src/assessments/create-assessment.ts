import type { AssessmentCreated } from '../events.js';
import { DomainError, validationFailed } from '../shared/errors.js';
import type { TestRef } from '../shared/types.js';
import { isCalendarDate, isPlainObject, isStorableText, utcDay } from '../shared/validation.js';

export const MAX_TESTS_PER_ASSESSMENT = 10;
export const MAX_ASSESSMENT_NAME = 200;

export interface CreateAssessmentCommand {
  type: 'CreateAssessment';
  assessmentId: string;
  workspaceId: string;
  inviteToken: string;
  /** The request body as received (already known to be a JSON object). */
  body: Record<string, unknown>;
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
  const { body } = command;
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  if (name.length < 1 || name.length > MAX_ASSESSMENT_NAME || !isStorableText(name)) throw validationFailed(`name must be a string of 1 to ${MAX_ASSESSMENT_NAME} characters`);
  const slugs = body.tests;
  if (!Array.isArray(slugs) || slugs.length < 1 || slugs.length > MAX_TESTS_PER_ASSESSMENT || !slugs.every((slug) => typeof slug === 'string')) {
    throw validationFailed(`tests must be a list of 1 to ${MAX_TESTS_PER_ASSESSMENT} test slugs`);
  }
  if (new Set(slugs).size !== slugs.length) throw validationFailed('tests must not repeat a slug');
  const deadline = body.deadline ?? null;
  if (deadline !== null && (typeof deadline !== 'string' || !isCalendarDate(deadline) || deadline < utcDay(command.metadata.now))) {
    throw validationFailed('deadline must be a date YYYY-MM-DD, today or later, or null');
  }
  const tests: TestRef[] = [];
  for (const slug of slugs as string[]) {
    const test = lookupTest(slug);
    if (!test) throw new DomainError('unknown_test', `unknown test slug: ${slug}`);
    tests.push(test);
  }
  return [{
    type: 'AssessmentCreated',
    data: { assessmentId: command.assessmentId, workspaceId: command.workspaceId, name, tests, deadline, inviteToken: command.inviteToken, createdAt: command.metadata.now },
  }];
};

export const isCreateAssessmentBody = isPlainObject;
