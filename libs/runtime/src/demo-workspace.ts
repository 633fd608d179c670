import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CreateWorkspace, IssueApiKey, type IssuedKey, VerifyWorkspace, systemContext } from '#commands';
import { getApiKey } from '#read-models';
import type { Infrastructure } from './infrastructure.js';

export interface DemoWorkspace {
  workspaceId: string;
  live: IssuedKey;
  sandbox: IssuedKey;
}

/**
 * The demo workspace a newcomer gets on first start. Its two keys are kept in DATA_DIR (readable by
 * the owner only) so that every start can print them again: the service itself stores only hashes.
 */
export const ensureDemoWorkspace = async (infra: Infrastructure, app: NestFastifyApplication): Promise<DemoWorkspace> => {
  const path = join(infra.config.dataDir, 'demo-workspace.json');
  try {
    const saved = JSON.parse(await readFile(path, 'utf8')) as DemoWorkspace;
    const key = await getApiKey(infra.documents, saved.live.id);
    if (key && key.key === saved.live.key) return saved;
  } catch {
    // First start, or a DATA_DIR from elsewhere: make a new demo workspace.
  }
  const commands = app.get(CommandBus);
  const context = systemContext('demo-setup');
  const workspace = await commands.execute(new CreateWorkspace({ name: 'Demo workspace', freeAllowance: 5 }, context));
  await commands.execute(new VerifyWorkspace(workspace.id, context));
  const live = await commands.execute(new IssueApiKey(workspace.id, 'live', context));
  const sandbox = await commands.execute(new IssueApiKey(workspace.id, 'sandbox', context));
  const demo: DemoWorkspace = { workspaceId: workspace.id, live, sandbox };
  await writeFile(path, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
};
