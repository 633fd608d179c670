import 'reflect-metadata';
import { notFound } from '#domain';
import { refused, refusalOf } from '../testing/refusal.js';
import { validatedBody } from '../validation/validated-body.js';
import { CompleteTestBody, registrationOf, resultScores } from './candidates.dto.js';

const JOIN = 'http://localhost:3100/join/asm_1/tok';
const INVITATION = 'http://localhost:3100/invitations/asm_1/tok';
const NAMES_RULE = 'firstName and surname must be strings of at most 255 characters';

/** Every sign-up link is one the service issued, of a known assessment (the lookup is the query side's, see known-ids). */
const knownLink = async (): Promise<void> => {};
const lookedUp: string[] = [];
const unknownLink = async (inviteUrl: string): Promise<void> => {
  lookedUp.push(inviteUrl);
  throw notFound('invite link');
};
const registered = (body: object) => registrationOf(body, knownLink);

describe('RegistrationBody', () => {
  it('types a personal link alone, whatever else the body holds', async () => {
    expect(await registered({ invitationUrl: INVITATION, email: 5, firstName: 7 })).toEqual({ invitationUrl: INVITATION });
  });

  it('types a sign-up: the address trimmed and lower-cased, absent names empty', async () => {
    expect(await registered({ inviteUrl: JOIN, email: '  Ann@Example.COM ' }))
      .toEqual({ inviteUrl: JOIN, email: 'ann@example.com', firstName: '', surname: '' });
    expect(await registered({ inviteUrl: JOIN, email: 'ann@example.com', firstName: 'Ann', surname: 'Lee' }))
      .toEqual({ inviteUrl: JOIN, email: 'ann@example.com', firstName: 'Ann', surname: 'Lee' });
  });

  it.each<[object, string]>([
    [{}, 'invitationUrl, or inviteUrl with email, is required'],
    [{ email: 'a@example.com' }, 'invitationUrl, or inviteUrl with email, is required'],
    [{ invitationUrl: 5 }, 'invitationUrl must be a link the service issued'],
    [{ invitationUrl: null, inviteUrl: JOIN, email: 'a@example.com' }, 'invitationUrl must be a link the service issued'],
    [{ invitationUrl: 'not a url' }, 'invitationUrl is not a URL'],
    [{ inviteUrl: null, email: 'a@example.com' }, 'inviteUrl must be a link the service issued'],
    [{ inviteUrl: 'not a url', email: 'a@example.com' }, 'inviteUrl is not a URL'],
    [{ inviteUrl: 'not a url', email: 'bad' }, 'inviteUrl is not a URL'],
    [{ inviteUrl: JOIN }, 'email must be a valid e-mail address'],
    [{ inviteUrl: JOIN, email: 'not-an-address' }, 'email must be a valid e-mail address'],
    [{ inviteUrl: JOIN, email: 5 }, 'email must be a valid e-mail address'],
    [{ inviteUrl: JOIN, email: 'ok@example.com', firstName: 5 }, NAMES_RULE],
    [{ inviteUrl: JOIN, email: 'ok@example.com', firstName: null }, NAMES_RULE],
    [{ inviteUrl: JOIN, email: 'ok@example.com', surname: 's'.repeat(256) }, NAMES_RULE],
    [{ inviteUrl: JOIN, email: 'ok@example.com', firstName: 'R\u0000' }, NAMES_RULE],
    // Once the decider's (registration.decider.spec): the address and the names of a sign-up.
    ...[null, '', 'ann', 'ann@localhost', 'ann@@example.com', `${'a'.repeat(243)}@example.com`].map((email): [object, string] => [{ inviteUrl: JOIN, email }, 'email must be a valid e-mail address']),
    [{ inviteUrl: JOIN, email: 'ok@example.com', surname: 3 }, NAMES_RULE],
    [{ inviteUrl: JOIN, email: 'ok@example.com', firstName: 'f'.repeat(256) }, NAMES_RULE],
  ])('refuses %j', async (body, message) => {
    expect(await refusalOf(registered(body))).toEqual(refused(message));
  });

  it('refuses a sign-up whose link is not known before judging the person, and judges the links\' shapes before that', async () => {
    lookedUp.length = 0;
    expect(await refusalOf(registrationOf({ inviteUrl: JOIN, email: 'bad', firstName: 5 }, unknownLink))).toEqual({ status: 404, code: 'not_found', message: 'invite link not found' });
    expect(lookedUp).toEqual([JOIN]);
    expect(await refusalOf(registrationOf({ inviteUrl: 'not a url', email: 'bad' }, unknownLink))).toEqual(refused('inviteUrl is not a URL'));
    // A personal link names its person: no sign-up link is looked up, no person judged.
    expect(await registrationOf({ invitationUrl: INVITATION, inviteUrl: JOIN, email: 'bad' }, unknownLink)).toEqual({ invitationUrl: INVITATION });
    expect(lookedUp).toEqual([JOIN]);
  });
});

const SCORES = { scorePercentage: 72.5, speedCompleted: 900, questionsAnswered: 20, questionsCorrect: 15, questionsIncorrect: 5, questionsTotal: 20 };

describe('CompleteTestBody', () => {
  it('types the scores, result and detail null when absent, the detail as sent', async () => {
    expect(resultScores(await validatedBody(CompleteTestBody, SCORES))).toEqual({ ...SCORES, result: null, scores: null });
    const detail = JSON.parse('{"openness":71,"nested":{"a":[1,2]},"__proto__":{"x":1}}') as Record<string, unknown>;
    const typed = resultScores(await validatedBody(CompleteTestBody, { ...SCORES, result: 'ENTJ', scores: detail, other: true }));
    expect(typed).toEqual({ ...SCORES, result: 'ENTJ', scores: detail });
    expect(typed.scores).toBe(detail);
    expect(Object.keys(typed)).toEqual(['scorePercentage', 'speedCompleted', 'questionsAnswered', 'questionsCorrect', 'questionsIncorrect', 'questionsTotal', 'result', 'scores']);
  });

  it('accepts the bounds', async () => {
    const zero = { ...SCORES, scorePercentage: 0, questionsAnswered: 0, questionsCorrect: 0, questionsIncorrect: 0, questionsTotal: 0 };
    expect(resultScores(await validatedBody(CompleteTestBody, zero))).toEqual({ ...zero, result: null, scores: null });
    expect(resultScores(await validatedBody(CompleteTestBody, { ...SCORES, scorePercentage: 100 }))).toMatchObject({ scorePercentage: 100 });
  });

  it.each([
    [{}, 'scorePercentage must be a number from 0 to 100'],
    [{ ...SCORES, scorePercentage: 101 }, 'scorePercentage must be a number from 0 to 100'],
    [{ ...SCORES, scorePercentage: '50' }, 'scorePercentage must be a number from 0 to 100'],
    [{ ...SCORES, speedCompleted: 1.5 }, 'speedCompleted must be a whole number from 0 to 1000000'],
    [{ ...SCORES, questionsAnswered: -1 }, 'questionsAnswered must be a whole number from 0 to 100000'],
    [{ ...SCORES, questionsCorrect: null }, 'questionsCorrect must be a whole number from 0 to 100000'],
    [{ ...SCORES, questionsIncorrect: 100_001 }, 'questionsIncorrect must be a whole number from 0 to 100000'],
    [{ ...SCORES, questionsTotal: undefined }, 'questionsTotal must be a whole number from 0 to 100000'],
    [{ ...SCORES, questionsAnswered: 21 }, 'questions must satisfy correct + incorrect <= answered <= total'],
    [{ ...SCORES, questionsCorrect: 16 }, 'questions must satisfy correct + incorrect <= answered <= total'],
    [{ ...SCORES, result: 5 }, 'result must be a string or null'],
    [{ ...SCORES, result: 'r'.repeat(1001) }, 'result must be a string or null'],
    [{ ...SCORES, scores: [1] }, 'scores must be an object or null'],
    [{ ...SCORES, scores: 'x' }, 'scores must be an object or null'],
    // Once parseScores' in the domain (progress.decider.spec).
    [{ ...SCORES, scorePercentage: 100.5 }, 'scorePercentage must be a number from 0 to 100'],
    [{ ...SCORES, scorePercentage: -1 }, 'scorePercentage must be a number from 0 to 100'],
    [{ ...SCORES, questionsIncorrect: 6 }, 'questions must satisfy correct + incorrect <= answered <= total'],
    [{ ...SCORES, result: 42 }, 'result must be a string or null'],
    [{ ...SCORES, scores: 'high' }, 'scores must be an object or null'],
    // In the order they have always been checked.
    [{ ...SCORES, speedCompleted: -1, questionsTotal: -1, result: 5 }, 'speedCompleted must be a whole number from 0 to 1000000'],
    [{ ...SCORES, questionsAnswered: 21, result: 5, scores: 'x' }, 'questions must satisfy correct + incorrect <= answered <= total'],
  ])('refuses %j', async (body, message) => {
    expect(await refusalOf(validatedBody(CompleteTestBody, body))).toEqual(refused(message));
  });
});
