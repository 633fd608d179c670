import { Command } from '@nestjs/cqrs';
import type { Mode } from '#domain';
import type { RequestContext } from '../shared/ports.js';

export interface WorkspaceView { id: string; name: string; verified: boolean; freeAllowance: number }
export interface IssuedKey { id: string; key: string; secret: string; mode: Mode }
export interface WebhookSettingsView { url: string; events: string[]; secret: string; enabled: boolean; disabledReason: 'gone' | 'failing' | null }

export class CreateWorkspace extends Command<WorkspaceView> {
  constructor(readonly body: { name?: unknown; freeAllowance?: unknown }, readonly context: RequestContext) { super(); }
}
export class VerifyWorkspace extends Command<WorkspaceView> {
  constructor(readonly workspaceId: string, readonly context: RequestContext) { super(); }
}
export class IssueApiKey extends Command<IssuedKey> {
  constructor(readonly workspaceId: string, readonly mode: unknown, readonly context: RequestContext) { super(); }
}
export class RegenerateApiKey extends Command<IssuedKey> {
  constructor(readonly apiKeyId: string, readonly context: RequestContext) { super(); }
}
export class ConfigureWebhook extends Command<WebhookSettingsView> {
  constructor(readonly workspaceId: string, readonly body: { url?: unknown; events?: unknown }, readonly context: RequestContext) { super(); }
}
export class RotateWebhookSecret extends Command<WebhookSettingsView> {
  constructor(readonly workspaceId: string, readonly context: RequestContext) { super(); }
}
export class DisableWebhook extends Command<void> {
  constructor(readonly workspaceId: string, readonly url: string, readonly reason: 'gone' | 'failing', readonly context: RequestContext) { super(); }
}
export class CreateCustomTest extends Command<{ slug: string; name: string; type: 'custom' }> {
  constructor(readonly workspaceId: string, readonly body: { name?: unknown; minutes?: unknown; questionCount?: unknown }, readonly context: RequestContext) { super(); }
}
