import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { REDIS_URL, deleteKeys } from '#messaging/test-support/redis.js';
import type { WebhookReceiver } from '../../support/messaging-receivers.js';
import type { Actor } from './actor.js';
import { checkBilling, checkSandboxAllowance, type Billing } from './checks-billing.js';
import { checkDatabaseErasure, checkRedisErasure, erasedPeople } from './checks-erasure.js';
import { checkDeletionsEndInvitations } from './checks-deletion.js';
import { checkProcessLogs } from './checks-process-logs.js';
import { checkIdempotency } from './checks-idempotency.js';
import {
  checkAcknowledgedWrites, checkInvitationUniqueness, checkNothingAfterDeletion, checkOneCandidatePerAddress, checkStandingInvitationsReadable,
} from './checks-log.js';
import { checkCompletionsUpdatedAt } from './checks-completions.js';
import { checkFeed } from './checks-feed.js';
import { checkInvitationsList } from './checks-invitations-list.js';
import { checkReads } from './checks-reads.js';
import { checkDeliveryLog, checkEmails, checkWebhooks, webhookEventIds } from './checks-side-effects.js';
import { checkStoredLog } from './checks-stored-log.js';
import type { Deployment } from './deployment.js';
import { FaultLog, planFaults, runFaults } from './faults.js';
import { Findings } from './findings.js';
import { Knowledge } from './knowledge.js';
import { type LogFacts, foldLog, readLog } from './log.js';
import { Recorder } from './recorder.js';
import { Random, type TierSettings, clientSeed } from './settings.js';
import { awaitWebhooks, settle } from './settle.js';
import { compareSnapshots, snapshotKey, takeSnapshot } from './snapshot.js';
import { runWorkload } from './workload.js';
import { buildWorld } from './world.js';

export interface SeedOutcome {
  seed: number;
  findings: Findings;
  report: string;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** One seeded workload on a running deployment, then every check; returns what broke and the summary printed. */
export const runSeed = async (seed: number, settings: TierSettings, deployment: Deployment, receiver: WebhookReceiver): Promise<SeedOutcome> => {
  const began = Date.now();
  process.stderr.write(`concurrency tier: ${deployment.name}, seed ${seed} (reproduce with CONCURRENCY_SEED=${seed}), ${settings.clients} clients\n`);
  const findings = new Findings();
  const faulty = settings.faults && deployment.faults !== undefined;
  if (settings.faults && !faulty) findings.note(`faults: ${deployment.name} cannot suffer them here; the workload ran without`);
  const faults = new FaultLog();
  const recorder = new Recorder(findings, faulty ? faults : undefined);
  const knowledge = new Knowledge();
  const world = await buildWorld(seed, new Random(seed), deployment, recorder, settings.clients, receiver.url);
  const actors: Actor[] = Array.from({ length: settings.clients }, (_, client) => ({
    client, random: new Random(clientSeed(seed, client)), deployment, recorder, findings, world, knowledge,
  }));
  const progress = { done: 0, finished: false };
  const injected = faulty && deployment.faults !== undefined
    ? runFaults(seed, planFaults(seed, settings.operations), deployment.faults, faults, progress) : Promise.resolve();
  const workload = await runWorkload(actors, settings, progress);
  await injected;
  const settled = Date.now();
  const exited = deployment.exitedProcesses();
  for (const output of exited) findings.add('no process exits under load', output);
  if (exited.length > 0) {
    // Nothing more can be read from a deployment missing a process; the next seed would find it so too.
    process.stderr.write(`${recorder.summary()}\n`);
    throw new Error(`${deployment.name}, seed ${seed}: reproduce with CONCURRENCY_SEED=${seed}\n${findings.report()}`);
  }
  await settle(deployment, findings);

  const workspaceIds = world.workspaces.map((workspace) => workspace.id);
  const facts = foldLog(await readLog(deployment, new Set(workspaceIds)));
  await awaitWebhooks(receiver.requests, webhookEventIds(facts));
  checkAcknowledgedWrites(facts, knowledge, findings);
  checkInvitationUniqueness(facts, findings);
  checkStandingInvitationsReadable(facts, knowledge, findings);
  checkOneCandidatePerAddress(facts, findings);
  checkNothingAfterDeletion(facts, findings);
  checkIdempotency(knowledge, findings, faults);
  checkDeletionsEndInvitations(facts, findings);

  const before = await takeSnapshot(world, facts, deployment, recorder);
  const clockMoved = recorder.records.some((record) => record.op === 'clock' && record.status === 200);
  for (const workspace of world.workspaces) {
    checkReads(workspace, before, facts, knowledge, findings);
    checkInvitationsList(workspace, before, facts, findings);
    const billing = before.get(snapshotKey(workspace, 'live', 'billing'));
    if (findings.expect(billing?.status === 200, 'the billing list answers', () => `${workspace.id}: ${billing?.status}`)) {
      checkBilling(workspace, billing?.body.data as Billing, facts, knowledge, findings);
    }
    const me = before.get(snapshotKey(workspace, 'sandbox', '/v1/me'));
    checkSandboxAllowance(workspace, facts, clockMoved ? null : (me?.body?.data?.sandbox?.remaining ?? -1), findings);
    const deliveries = await recorder.call('check.deliveries', 'GET', `${deployment.internalUrl()}/internal/workspaces/${workspace.id}/webhook-deliveries`, {
      headers: { authorization: `Bearer ${deployment.internalToken()}` },
    });
    checkDeliveryLog(workspace.id, deliveries.body?.data ?? [], findings);
  }
  checkWebhooks(facts, receiver.requests, findings);
  for (const workspace of world.workspaces) checkFeed(workspace, before, facts, receiver.requests, findings);
  for (const workspace of world.workspaces) checkCompletionsUpdatedAt(workspace, before, facts, findings);

  const needles = erasedPeople(facts, knowledge);
  await checkRedisErasure(deployment.queuePrefix, workspaceIds, needles, knowledge, findings, deployment.redisUrl);
  const addresses = world.workspaces.flatMap((workspace) => workspace.addresses);
  const maintained = await deployment.maintenance(async (db) => {
    await checkEmails(db, facts, deployment.appUrl, addresses, findings);
    await checkDatabaseErasure(db, needles, findings);
    await checkStoredLog(db, facts, `.${world.tag}@example.com`, findings);
  });
  findings.expect(maintained.verified, 'the log verifies (audit verify)', () => maintained.verify);
  compareSnapshots(before, await takeSnapshot(world, facts, deployment, recorder), findings);
  if (faulty) checkProcessLogs(deployment.outputs?.() ?? [], findings);

  const report = [
    `concurrency tier: ${deployment.name}, seed ${seed}: ${workload.operations} operations by ${settings.clients} clients in ${seconds(workload.ms)}, `
      + `${recorder.records.length} requests; settled and checked in ${seconds(Date.now() - settled)}; ${seconds(Date.now() - began)} in all`,
    `  log: ${facts.events.length} events, ${facts.invitations.size} invitations, ${facts.candidates.size} candidates `
      + `(${[...facts.candidates.values()].filter((candidate) => candidate.deleted).length} deleted, ${needles.filter((needle) => needle.what === 'the address').length} addresses erased); ${maintained.rebuild}`,
    recorder.summary(),
    ...(faulty ? [faults.summary()] : []),
    ...findings.notes.map((note) => `  ${note}`),
    findings.items.length === 0 ? '  every invariant held' : `  BROKEN INVARIANTS (reproduce with CONCURRENCY_SEED=${seed}):\n${findings.report()}`,
  ].join('\n');
  await forgetIdempotencyRecords(workspaceIds, deployment.redisUrl);
  if (findings.items.length > 0) {
    const dump = process.env.CONCURRENCY_DUMP;
    process.stderr.write(dump ? `  the workload's answers and log: ${dumpRun(dump, seed, deployment, knowledge, facts, faults)}\n` : '  (CONCURRENCY_DUMP=<folder> keeps the answers and the log of a failing seed)\n');
  }
  process.stderr.write(`${report}\n`);
  return { seed, findings, report };
};

/** Several seeds in a row on one deployment (CONCURRENCY_SEEDS); fails with every broken invariant and the seeds that broke them. */
export const runSeeds = async (settings: TierSettings, deployment: Deployment, receiver: WebhookReceiver): Promise<void> => {
  const failed: SeedOutcome[] = [];
  for (const seed of settings.seeds) {
    const outcome = await runSeed(seed, settings, deployment, receiver);
    if (outcome.findings.items.length > 0) failed.push(outcome);
  }
  if (failed.length === 0) return;
  throw new Error(failed.map(({ seed, findings }) =>
    `${deployment.name}: seed ${seed} broke invariants; reproduce with CONCURRENCY_SEED=${seed}\n${findings.report()}`).join('\n\n'));
};

/** What a failing run knew and what the log held, as JSON in a folder of its own under `root`, to look into afterwards. */
const dumpRun = (root: string, seed: number, deployment: Deployment, knowledge: Knowledge, facts: LogFacts, faults: FaultLog): string => {
  mkdirSync(root, { recursive: true });
  const folder = mkdtempSync(join(root, `seed-${seed}-`));
  const json = (value: unknown, indent?: number) => JSON.stringify(value, (_key, item: unknown) =>
    (typeof item === 'bigint' ? item.toString() : item instanceof Set ? [...item] : item instanceof Map ? Object.fromEntries(item) : item), indent);
  writeFileSync(join(folder, 'knowledge.json'), json({ deployment: deployment.name, faults: faults.windows, ...knowledge }, 1));
  writeFileSync(join(folder, 'log.jsonl'), facts.events.map((event) => json(event)).join('\n'));
  for (const { name, output } of deployment.outputs?.() ?? []) writeFileSync(join(folder, `${name}.log`), output);
  return folder;
};

/** The workload's idempotency records (24 hours in Redis otherwise); its queue keys go with the deployment. */
const forgetIdempotencyRecords = async (workspaceIds: string[], redisUrl = REDIS_URL): Promise<void> => {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  try {
    for (const id of workspaceIds) for (const form of [encodeURIComponent(id), `{${encodeURIComponent(id)}}`]) await deleteKeys(redis, `idem:${form}`);
  } finally {
    redis.disconnect();
  }
};
