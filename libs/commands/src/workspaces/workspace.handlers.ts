import { randomBytes } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Logger } from 'pino';
import {
  type ActiveWorkspace, type WorkspaceCommand, type WorkspaceEvent, type WorkspaceState, decideWorkspace, evolveWorkspace, notFound, workspaceStream,
} from '#domain';
import type { SecretBox } from '#platform';
import { generateApiKey, hashSecret, ids } from '#platform';
import { EventWriter } from '../shared/event-writer.js';
import { workspaceFold } from '../shared/folds.js';
import type { RequestContext, WriteLookups } from '../shared/ports.js';
import { LOGGER, LOOKUPS, SECRET_BOX } from '../shared/tokens.js';
import { RETIRED_API_KEYS, type RetiredApiKeys } from './retired-api-keys.js';
import {
  ConfigureWebhook, CreateCustomTest, CreateWorkspace, DisableWebhook, type IssuedKey, IssueApiKey, RegenerateApiKey, RotateWebhookSecret,
  VerifyWorkspace, type WebhookSettingsView, type WorkspaceView,
} from './workspace.commands.js';

type WorkspaceCommandBody = WorkspaceCommand extends infer C ? (C extends WorkspaceCommand ? Omit<C, 'metadata'> : never) : never;

/** Decides one workspace command and appends it; returns the state after the decision and the events appended. */
const decideWorkspaceCommand = async (writer: EventWriter, workspaceId: string, command: WorkspaceCommandBody, context: RequestContext) => {
  const streamId = workspaceStream(workspaceId);
  const { state, events } = await writer.handle(streamId, context, async (streams, now) => {
    const workspace = await streams.load(streamId, workspaceFold);
    const decided: WorkspaceEvent[] = decideWorkspace({ ...command, metadata: { now } } as WorkspaceCommand, workspace);
    return { appends: [{ streamId, events: decided }], answer: { state: decided.reduce<WorkspaceState>(evolveWorkspace, workspace), events: decided } };
  });
  if (state.status !== 'active') throw notFound('workspace');
  return { workspace: state, events };
};

/** Decides one workspace command and appends it; returns the state after the decision. */
const runWorkspaceCommand = async (writer: EventWriter, workspaceId: string, command: WorkspaceCommandBody, context: RequestContext): Promise<ActiveWorkspace> =>
  (await decideWorkspaceCommand(writer, workspaceId, command, context)).workspace;

const workspaceView = (workspace: ActiveWorkspace): WorkspaceView =>
  ({ id: workspace.id, name: workspace.name, verified: workspace.verified, freeAllowance: workspace.freeAllowance });

@CommandHandler(CreateWorkspace)
export class CreateWorkspaceHandler implements ICommandHandler<CreateWorkspace> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ draft, context }: CreateWorkspace): Promise<WorkspaceView> {
    const workspaceId = ids.workspace();
    return workspaceView(await runWorkspaceCommand(this.writer, workspaceId, { type: 'CreateWorkspace', workspaceId, name: draft.name, freeAllowance: draft.freeAllowance }, context));
  }
}

@CommandHandler(VerifyWorkspace)
export class VerifyWorkspaceHandler implements ICommandHandler<VerifyWorkspace> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ workspaceId, context }: VerifyWorkspace): Promise<WorkspaceView> {
    return workspaceView(await runWorkspaceCommand(this.writer, workspaceId, { type: 'VerifyWorkspace' }, context));
  }
}

@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<IssueApiKey> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ workspaceId, mode, context }: IssueApiKey): Promise<IssuedKey> {
    const apiKeyId = ids.apiKey();
    const { key, secret } = generateApiKey(mode);
    const workspace = await runWorkspaceCommand(this.writer, workspaceId, { type: 'IssueApiKey', apiKeyId, mode, key, secretHash: hashSecret(secret) }, context);
    const issued = workspace.apiKeys.get(apiKeyId);
    if (!issued) throw notFound('API key');
    return { id: apiKeyId, key, secret, mode: issued.mode };
  }
}

/**
 * API processes' key caches are emptied by the change feed a moment after the commit, so before
 * answering the old key is also retired in RetiredApiKeys (the rate limiter's script, run by every
 * authenticated request). If Redis cannot take it the answer stands: API requests fail while Redis
 * is down, and by the time it is back the change feed has emptied every cache.
 */
@CommandHandler(RegenerateApiKey)
export class RegenerateApiKeyHandler implements ICommandHandler<RegenerateApiKey> {
  constructor(
    private readonly writer: EventWriter,
    @Inject(LOOKUPS) private readonly lookups: WriteLookups,
    @Inject(RETIRED_API_KEYS) private readonly retiredKeys: RetiredApiKeys,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}
  async execute({ apiKeyId, context }: RegenerateApiKey): Promise<IssuedKey> {
    const workspaceId = await this.lookups.workspaceOfApiKey(apiKeyId);
    if (!workspaceId) throw notFound('API key');
    const streamId = workspaceStream(workspaceId);
    const { issued, events } = await this.writer.handle(streamId, context, async (streams, now) => {
      const workspace = await streams.load(streamId, workspaceFold);
      const current = workspace.status === 'active' ? workspace.apiKeys.get(apiKeyId) : undefined;
      if (!current) throw notFound('API key');
      const { key, secret } = generateApiKey(current.mode);
      const decided = decideWorkspace({ type: 'RegenerateApiKey', apiKeyId, key, secretHash: hashSecret(secret), metadata: { now } }, workspace);
      return { appends: [{ streamId, events: decided }], answer: { issued: { key, secret, mode: current.mode }, events: decided } };
    });
    // The key it replaced, as the event recorded it.
    const regenerated = events.find((event) => event.type === 'ApiKeyRegenerated');
    if (regenerated !== undefined) {
      await this.retiredKeys.retire(apiKeyId, regenerated.data.previousKey).catch((error: unknown) => {
        this.logger.warn({ err: error, apiKeyId }, 'could not retire the regenerated key on Redis; API processes refuse it once the change feed reaches them');
      });
    }
    return { id: apiKeyId, key: issued.key, secret: issued.secret, mode: issued.mode };
  }
}

export const webhookSettingsView = (workspace: ActiveWorkspace, box: SecretBox): WebhookSettingsView => {
  const webhook = workspace.webhook;
  if (!webhook) throw notFound('webhook');
  return { url: webhook.url, events: webhook.events, secret: box.open(webhook.encryptedSecret), enabled: webhook.enabled, disabledReason: webhook.disabledReason };
};

const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

@CommandHandler(ConfigureWebhook)
export class ConfigureWebhookHandler implements ICommandHandler<ConfigureWebhook> {
  constructor(private readonly writer: EventWriter, @Inject(SECRET_BOX) private readonly box: SecretBox) {}
  async execute({ workspaceId, settings, context }: ConfigureWebhook): Promise<WebhookSettingsView> {
    const command = { type: 'ConfigureWebhook' as const, url: settings.url, events: settings.events, newEncryptedSecret: this.box.seal(newWebhookSecret()) };
    return webhookSettingsView(await runWorkspaceCommand(this.writer, workspaceId, command, context), this.box);
  }
}

@CommandHandler(RotateWebhookSecret)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecret> {
  constructor(private readonly writer: EventWriter, @Inject(SECRET_BOX) private readonly box: SecretBox) {}
  async execute({ workspaceId, context }: RotateWebhookSecret): Promise<WebhookSettingsView> {
    const command = { type: 'RotateWebhookSecret' as const, newEncryptedSecret: this.box.seal(newWebhookSecret()) };
    return webhookSettingsView(await runWorkspaceCommand(this.writer, workspaceId, command, context), this.box);
  }
}

@CommandHandler(DisableWebhook)
export class DisableWebhookHandler implements ICommandHandler<DisableWebhook> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ workspaceId, url, reason, context }: DisableWebhook): Promise<void> {
    await runWorkspaceCommand(this.writer, workspaceId, { type: 'DisableWebhook', url, reason }, context);
  }
}

@CommandHandler(CreateCustomTest)
export class CreateCustomTestHandler implements ICommandHandler<CreateCustomTest> {
  constructor(private readonly writer: EventWriter) {}
  async execute({ workspaceId, draft, context }: CreateCustomTest): Promise<{ slug: string; name: string; type: 'custom' }> {
    const slug = ids.customTest();
    const workspace = await runWorkspaceCommand(this.writer, workspaceId, { type: 'CreateCustomTest', slug, ...draft }, context);
    const test = workspace.customTests.get(slug);
    if (!test) throw notFound('custom test');
    return { slug, name: test.name, type: 'custom' };
  }
}

export const workspaceHandlers = [
  CreateWorkspaceHandler, VerifyWorkspaceHandler, IssueApiKeyHandler, RegenerateApiKeyHandler, ConfigureWebhookHandler,
  RotateWebhookSecretHandler, DisableWebhookHandler, CreateCustomTestHandler,
];
