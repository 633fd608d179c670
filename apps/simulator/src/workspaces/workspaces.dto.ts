import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { type Mode, WEBHOOK_EVENT_NAMES, type WebhookEventName, webhookUrlProblem } from '#domain';
import { Rule, TrimmedName, WholeNumber } from '../validation/body-rules.js';
import { validatedBody } from '../validation/validated-body.js';

/** What CreateWorkspace is given: the trimmed name and the allowance (0 when the body has none). */
export interface WorkspaceDraft { name: string; freeAllowance: number }
/** What ConfigureWebhook is given: the address as sent, the events in their canonical order, each once. */
export interface WebhookSettings { url: string; events: WebhookEventName[] }
/** What CreateCustomTest is given. */
export interface CustomTestDraft { name: string; minutes: number; questionCount: number }

export const MAX_FREE_ALLOWANCE = 1_000_000;

export class CreateWorkspaceBody {
  @ApiProperty({ type: 'string', minLength: 1, example: 'Acme Recruiting' })
  @TrimmedName(200)
  name!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: 'Free live candidates before billing' })
  @IsOptional()
  @WholeNumber(0, MAX_FREE_ALLOWANCE, 'freeAllowance must be a whole number from 0')
  freeAllowance?: number | null;
}

export const workspaceDraft = (body: CreateWorkspaceBody): WorkspaceDraft => ({ name: body.name, freeAllowance: body.freeAllowance ?? 0 });

export class IssueApiKeyBody {
  @ApiProperty({ type: 'string', enum: ['live', 'sandbox'] })
  @IsIn(['live', 'sandbox'], { message: 'mode must be "live" or "sandbox"' })
  mode!: Mode;
}

const EVENTS_RULE = `events must be a non-empty list of: ${WEBHOOK_EVENT_NAMES.join(', ')}`;
const isEventList = (value: unknown): boolean => {
  const known: readonly unknown[] = WEBHOOK_EVENT_NAMES;
  return Array.isArray(value) && value.length > 0 && value.every((name) => known.includes(name));
};

/** The webhook body's rules: the address's depend on whether insecure addresses are allowed (WEBHOOK_ALLOW_INSECURE). */
const webhookRules = (allowInsecure: boolean) => {
  class WebhookRules {
    @ApiProperty({ type: 'string', format: 'uri', description: 'An absolute https:// URL (http:// too with WEBHOOK_ALLOW_INSECURE=true)' })
    @Rule('webhookUrl', (value) => webhookUrlProblem(value, allowInsecure) === null, (value) => webhookUrlProblem(value, allowInsecure) ?? 'url is required')
    url!: string;

    @ApiProperty({ type: 'array', minItems: 1, items: { type: 'string', enum: [...WEBHOOK_EVENT_NAMES] } })
    @Rule('webhookEvents', isEventList, EVENTS_RULE)
    events!: WebhookEventName[];
  }
  return WebhookRules;
};

export class SaveWebhookBody extends webhookRules(false) {}
/** The same body where WEBHOOK_ALLOW_INSECURE=true; the document shows SaveWebhookBody. */
export class SaveInsecureWebhookBody extends webhookRules(true) {}

/**
 * Checks a webhook body by the deployment's rule. Whether the host's name resolves to a private
 * address needs I/O: ConfigureWebhook checks that when it runs.
 */
export const webhookSettings = async (value: object, allowInsecure: boolean): Promise<WebhookSettings> => {
  const metatype: Type<SaveWebhookBody> = allowInsecure ? SaveInsecureWebhookBody : SaveWebhookBody;
  const body = await validatedBody(metatype, value);
  return { url: body.url, events: WEBHOOK_EVENT_NAMES.filter((name) => body.events.includes(name)) };
};

export class CreateCustomTestBody {
  @ApiProperty({ type: 'string', minLength: 1 })
  @TrimmedName(200)
  name!: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  @WholeNumber(1, 600, 'minutes must be a whole number from 1 to 600')
  minutes!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  @WholeNumber(1, 1000, 'questionCount must be a whole number from 1 to 1000')
  questionCount!: number;
}

export const customTestDraft = (body: CreateCustomTestBody): CustomTestDraft => ({ name: body.name, minutes: body.minutes, questionCount: body.questionCount });
