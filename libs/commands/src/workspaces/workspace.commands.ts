import { Command } from '@nestjs/cqrs';
import type { Mode, WebhookEventName } from '#domain';
import type { RequestContext } from '../shared/ports.js';

export interface WorkspaceView { id: string; name: string; verified: boolean; freeAllowance: number }
export interface IssuedKey { id: string; key: string; secret: string; mode: Mode }
export interface WebhookSettingsView { url: string; events: string[]; secret: string; enabled: boolean; disabledReason: 'gone' | 'failing' | null }

/*
 * The payloads the internal application's DTOs type (apps/simulator): each rule below is checked there
 * once, with its message, before a command is built.
 */

/** The name trimmed (1 to 200 storable characters), the allowance a whole number from 0 (0 when the body had none). */
export interface WorkspaceDraft { name: string; freeAllowance: number }
/** The address as sent (its shape and what it resolves to checked), the events each once, in their canonical order. */
export interface WebhookSettings { url: string; events: WebhookEventName[] }
/** The name trimmed (1 to 200 storable characters), minutes from 1 to 600, questions from 1 to 1000. */
export interface CustomTestDraft { name: string; minutes: number; questionCount: number }

export class CreateWorkspace extends Command<WorkspaceView> {
  constructor(readonly draft: WorkspaceDraft, readonly context: RequestContext) { super(); }
}
export class VerifyWorkspace extends Command<WorkspaceView> {
  constructor(readonly workspaceId: string, readonly context: RequestContext) { super(); }
}
export class IssueApiKey extends Command<IssuedKey> {
  constructor(readonly workspaceId: string, readonly mode: Mode, readonly context: RequestContext) { super(); }
}
export class RegenerateApiKey extends Command<IssuedKey> {
  constructor(readonly apiKeyId: string, readonly context: RequestContext) { super(); }
}
export class ConfigureWebhook extends Command<WebhookSettingsView> {
  constructor(readonly workspaceId: string, readonly settings: WebhookSettings, readonly context: RequestContext) { super(); }
}
export class RotateWebhookSecret extends Command<WebhookSettingsView> {
  constructor(readonly workspaceId: string, readonly context: RequestContext) { super(); }
}
export class DisableWebhook extends Command<void> {
  constructor(readonly workspaceId: string, readonly url: string, readonly reason: 'gone' | 'failing', readonly context: RequestContext) { super(); }
}
export class CreateCustomTest extends Command<{ slug: string; name: string; type: 'custom' }> {
  constructor(readonly workspaceId: string, readonly draft: CustomTestDraft, readonly context: RequestContext) { super(); }
}
