import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WEBHOOK_EVENT_NAMES } from '#domain';

/*
 * The bodies of the internal application's JSON routes, for its OpenAPI document. Their rules are
 * checked by the commands' deciders (422 validation_failed), which also decide the order of the
 * refusals (an unknown id before a bad body): these classes describe, they do not validate.
 */

export class CreateWorkspaceBody {
  @ApiProperty({ type: 'string', minLength: 1, example: 'Acme Recruiting' })
  name!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: 'Free live candidates before billing' })
  freeAllowance?: number;
}

export class IssueApiKeyBody {
  @ApiProperty({ type: 'string', enum: ['live', 'sandbox'] })
  mode!: 'live' | 'sandbox';
}

export class SaveWebhookBody {
  @ApiProperty({ type: 'string', format: 'uri', description: 'An absolute https:// URL (http:// too with WEBHOOK_ALLOW_INSECURE=true)' })
  url!: string;

  @ApiProperty({ type: 'array', minItems: 1, items: { type: 'string', enum: [...WEBHOOK_EVENT_NAMES] } })
  events!: string[];
}

const TIME = 'A date (YYYY-MM-DD, midnight UTC) or an ISO 8601 date-time with Z or an offset, domain time';

export class RecoverWebhookBody {
  @ApiProperty({ type: 'string', example: '2026-11-20T09:00:00.000Z', description: `${TIME}; at most 30 days before now` })
  since!: string;

  @ApiPropertyOptional({ type: 'string', example: '2026-11-21T09:00:00.000Z', description: `${TIME}; now when absent; not before since` })
  until?: string;
}

export class CreateCustomTestBody {
  @ApiProperty({ type: 'string', minLength: 1 })
  name!: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  minutes!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  questionCount!: number;
}

export class AddTestBody {
  @ApiProperty({ type: 'string', description: 'A custom test of the workspace' })
  slug!: string;
}

export class RegistrationBody {
  @ApiPropertyOptional({ type: 'string', format: 'uri', description: 'A personal invitation link; or give inviteUrl and email' })
  invitationUrl?: string;

  @ApiPropertyOptional({ type: 'string', format: 'uri', description: "The assessment's public sign-up link" })
  inviteUrl?: string;

  @ApiPropertyOptional({ type: 'string' })
  email?: string;

  @ApiPropertyOptional({ type: 'string', maxLength: 255 })
  firstName?: string;

  @ApiPropertyOptional({ type: 'string', maxLength: 255 })
  surname?: string;
}

export class CompleteTestBody {
  @ApiProperty({ type: 'number', minimum: 0, maximum: 100 })
  scorePercentage!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Seconds taken' })
  speedCompleted!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  questionsAnswered!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  questionsCorrect!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  questionsIncorrect!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'correct + incorrect <= answered <= total' })
  questionsTotal!: number;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 1000 })
  result?: string | null;

  @ApiPropertyOptional({ type: 'object', nullable: true, additionalProperties: true })
  scores?: Record<string, unknown> | null;
}

export class AdvanceClockBody {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 315360000 })
  advanceSeconds!: number;
}
