import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import type { CustomTestDraft, WebhookSettings, WorkspaceDraft } from '#commands';
import { type Mode, type ResolveHost, WEBHOOK_EVENT_NAMES, type WebhookEventName, nonPublicAddressOf, validationFailed, webhookUrlProblem } from '#domain';
import { Rule, TrimmedName, WholeNumber } from '../validation/body-rules.js';
import { validatedBody } from '../validation/validated-body.js';

export const MAX_FREE_ALLOWANCE = 1_000_000;

/** The name's part of CreateWorkspaceBody (see there why it is a class of its own). */
class WorkspaceName {
  @ApiProperty({ type: 'string', minLength: 1, example: 'Acme Recruiting' })
  @TrimmedName(200)
  name!: string;
}

/*
 * The document lists the name first; the allowance has always been refused first (a body wrong in
 * both names the allowance). class-validator judges a class's own properties before those it
 * inherits, while the document lists inherited properties first: so the name is inherited.
 */
export class CreateWorkspaceBody extends WorkspaceName {
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
 * The first check of a webhook body, before the workspace is looked up and before the body's rules
 * (the order clients have always been answered in): an address whose host is, or resolves now to, a
 * non-public address is refused, unless insecure addresses are allowed. Delivery resolves it again.
 */
export const refuseNonPublicAddress = async (body: object, allowInsecure: boolean, resolve: ResolveHost): Promise<void> => {
  const url: unknown = 'url' in body ? body.url : undefined;
  if (!allowInsecure && typeof url === 'string' && (await nonPublicAddressOf(url, resolve))) throw validationFailed('url must point at a public host');
};

/** Checks a webhook body by the deployment's rule (WEBHOOK_ALLOW_INSECURE). */
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
