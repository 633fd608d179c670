import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, ValidateBy, ValidateIf } from 'class-validator';
import type { Registration } from '#commands';
import { type ResultScores, isPlainObject, isValidEmail, isValidPersonName, normalizeEmail, validationFailed } from '#domain';
import { AsSent, Rule, WhenPresent } from '../validation/body-rules.js';
import { validatedBody } from '../validation/validated-body.js';

const REGISTRATION_REQUIRED = 'invitationUrl, or inviteUrl with email, is required';
const NAMES_RULE = 'firstName and surname must be strings of at most 255 characters';

const isUrl = (value: string): boolean => {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
};

/** A link's shape: text that parses as a URL. */
const Link = (name: 'invitationUrl' | 'inviteUrl') =>
  Rule('link', (value) => typeof value === 'string' && isUrl(value), (value) =>
    value === undefined ? REGISTRATION_REQUIRED : typeof value !== 'string' ? `${name} must be a link the service issued` : `${name} is not a URL`);

/** The sign-up fields count only when no personal link is given (the invitation names the person). */
const WhenSigningUp = () => ValidateIf((body: RegistrationBody) => body.invitationUrl === undefined);

/** The links' part of RegistrationBody: judged before the person, see registrationOf. */
class RegistrationLinks {
  @ApiPropertyOptional({ type: 'string', format: 'uri', description: 'A personal invitation link; or give inviteUrl and email' })
  @WhenPresent()
  @Link('invitationUrl')
  invitationUrl?: string;

  @ApiPropertyOptional({ type: 'string', format: 'uri', description: "The assessment's public sign-up link" })
  @WhenSigningUp()
  @Link('inviteUrl')
  inviteUrl?: string;
}

/** The document lists the inherited links first, as the body has always been described. */
export class RegistrationBody extends RegistrationLinks {
  @ApiPropertyOptional({ type: 'string' })
  @WhenSigningUp()
  @Transform(({ value }: { value: unknown }) => normalizeEmail(value) ?? value)
  @Rule('email', (value) => typeof value === 'string' && isValidEmail(value), 'email must be a valid e-mail address')
  email?: string;

  @ApiPropertyOptional({ type: 'string', maxLength: 255 })
  @WhenSigningUp()
  @Rule('personName', isValidPersonName, NAMES_RULE)
  firstName?: string;

  @ApiPropertyOptional({ type: 'string', maxLength: 255 })
  @WhenSigningUp()
  @Rule('personName', isValidPersonName, NAMES_RULE)
  surname?: string;
}

const registration = (body: RegistrationBody): Registration => {
  if (body.invitationUrl !== undefined) return { invitationUrl: body.invitationUrl };
  // The DTO's rules make both present; the check keeps the type honest without an assertion.
  if (body.inviteUrl === undefined || body.email === undefined) throw validationFailed(REGISTRATION_REQUIRED);
  return { inviteUrl: body.inviteUrl, email: body.email, firstName: body.firstName ?? '', surname: body.surname ?? '' };
};

/**
 * A registration body (JSON, or the page's form as the JSON route would receive it), judged in the
 * order RegisterCandidate always answered: the links' shapes; for a sign-up, whether its link is one
 * the service issued for a known assessment (404); then the person.
 */
export const registrationOf = async (body: object, requireKnownSignUpLink: (inviteUrl: string) => Promise<void>): Promise<Registration> => {
  const links = await validatedBody(RegistrationLinks, body);
  if (links.invitationUrl === undefined && links.inviteUrl !== undefined) await requireKnownSignUpLink(links.inviteUrl);
  // The links pass by now: RegistrationBody, which judges its own fields before the links it inherits, names the person's first fault.
  return registration(await validatedBody(RegistrationBody, body));
};

const numberRule = (name: string, min: number, max: number, whole: boolean) =>
  Rule('scoreNumber', (value) => typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max && (!whole || Number.isInteger(value)),
    `${name} must be a ${whole ? 'whole ' : ''}number from ${min} to ${max}`);

const MAX_QUESTIONS = 100_000;
const isQuestionCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_QUESTIONS;

/** correct + incorrect <= answered <= total, judged once each count is itself valid (each has its own message). */
const ConsistentQuestions = () =>
  ValidateBy({
    name: 'consistentQuestions',
    validator: {
      validate: (_value: unknown, args) => {
        const { questionsAnswered: answered, questionsCorrect: correct, questionsIncorrect: incorrect, questionsTotal: total } = (args?.object ?? {}) as Record<string, unknown>;
        if (!isQuestionCount(answered) || !isQuestionCount(correct) || !isQuestionCount(incorrect) || !isQuestionCount(total)) return true;
        return answered <= total && correct + incorrect <= answered;
      },
      defaultMessage: () => 'questions must satisfy correct + incorrect <= answered <= total',
    },
  });

/** Declared in the order the rules have always been checked: the first one broken is the message. */
export class CompleteTestBody {
  @ApiProperty({ type: 'number', minimum: 0, maximum: 100 })
  @numberRule('scorePercentage', 0, 100, false)
  scorePercentage!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Seconds taken' })
  @numberRule('speedCompleted', 0, 1_000_000, true)
  speedCompleted!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  @numberRule('questionsAnswered', 0, MAX_QUESTIONS, true)
  questionsAnswered!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  @numberRule('questionsCorrect', 0, MAX_QUESTIONS, true)
  questionsCorrect!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  @numberRule('questionsIncorrect', 0, MAX_QUESTIONS, true)
  questionsIncorrect!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'correct + incorrect <= answered <= total' })
  @numberRule('questionsTotal', 0, MAX_QUESTIONS, true)
  @ConsistentQuestions()
  questionsTotal!: number;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 1000 })
  @IsOptional()
  @Rule('result', (value) => typeof value === 'string' && value.length <= 1000, 'result must be a string or null')
  result?: string | null;

  @ApiPropertyOptional({ type: 'object', nullable: true, additionalProperties: true })
  @IsOptional()
  @AsSent()
  @Rule('scores', isPlainObject, 'scores must be an object or null')
  scores?: Record<string, unknown> | null;
}

export const resultScores = (body: CompleteTestBody): ResultScores => ({
  scorePercentage: body.scorePercentage,
  speedCompleted: body.speedCompleted,
  questionsAnswered: body.questionsAnswered,
  questionsCorrect: body.questionsCorrect,
  questionsIncorrect: body.questionsIncorrect,
  questionsTotal: body.questionsTotal,
  result: body.result ?? null,
  scores: body.scores ?? null,
});
