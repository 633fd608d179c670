import { randomBytes, randomUUID } from 'node:crypto';
import {
  type AssessmentEvent, type CandidateEmailEvent, type CandidateEvent, type CandidateRef, type DomainEvent, type ResultScores, type TestRef,
  type WorkspaceEvent, CATALOGUE, assessmentStream, candidateEmailStream, candidateStream, workspaceStream,
} from '#domain';
import type { EventStore, ExpectedRevision, NewEvent, StreamAppend } from '#event-store';
import { generateApiKey, hashSecret, ids } from '#platform';
import { progress } from './log.js';

/** Candidates per assessment (the last one may have fewer). */
const PER_ASSESSMENT = 1_000;
/** Candidates per append: each is 2 new streams (address claim, candidate) plus the assessment and workspace streams. */
export const CANDIDATES_PER_APPEND = Number(process.env.BENCH_SEED_BATCH ?? 100);
/** Appends in flight: appends are serialized by the store's lock, two keep the connection busy while the next is built. */
const IN_FLIGHT = 2;
const MINUTE = 60_000;

export interface SeededWorkspace {
  workspaceId: string;
  /** `key:secret` of live keys, each good for 120 requests a minute. */
  credentials: string[];
  apiKeyIds: string[];
  candidates: number;
  assessments: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

const testsOf = (assessmentIndex: number): TestRef[] =>
  CATALOGUE.slice(assessmentIndex % 5, (assessmentIndex % 5) + 2 + (assessmentIndex % 2)).map(({ slug, name }) => ({ slug, name, type: 'library' as const }));

/** Events one candidate contributes: claim, created, registered, added, started, tests, completed, unlocked, allowance used. */
const eventsPerCandidate = (testCount: number): number => 8 + testCount;

const toNew = (event: DomainEvent, time: string): NewEvent => {
  const id = randomUUID();
  return {
    id, type: event.type, data: event.data as unknown as Record<string, unknown>,
    metadata: { correlationId: id, causationId: null, actor: 'internal', requestId: randomUUID(), time },
  };
};

const iso = (ms: number): string => new Date(ms).toISOString();

const scoresFor = (candidate: number, test: number): ResultScores => {
  const total = 18 + test;
  const correct = (candidate * 7 + test * 3) % (total + 1);
  return {
    scorePercentage: Math.round((correct / total) * 100), speedCompleted: 300 + ((candidate + test) % 900), questionsAnswered: total,
    questionsCorrect: correct, questionsIncorrect: total - correct, questionsTotal: total, result: null, scores: null,
  };
};

/**
 * Writes a verified workspace with `keys` live API keys and `candidates` candidates who each
 * registered on an assessment, started it, finished every test, completed it and had their first
 * result unlocked (on the free allowance): the events the domain itself records for that history,
 * with the same shapes and streams, appended through the store with many streams per append.
 */
export const seedWorkspace = async (store: EventStore, options: { candidates: number; keys: number; label: string }): Promise<SeededWorkspace> => {
  const { candidates, keys, label } = options;
  const workspaceId = ids.workspace();
  const assessments = Math.max(1, Math.ceil(candidates / PER_ASSESSMENT));
  const assessmentIds = Array.from({ length: assessments }, () => ids.assessment());
  const assessmentTests = assessmentIds.map((_, index) => testsOf(index));
  const assessmentOf = (candidate: number): number => Math.floor(candidate / PER_ASSESSMENT);
  let total = 2 + keys + assessments;
  for (let candidate = 0; candidate < candidates; candidate += 1) total += eventsPerCandidate(assessmentTests[assessmentOf(candidate)]?.length ?? 2);

  // Candidates register 30 s apart, ending three days ago; everything they do follows.
  const start = Date.now() - candidates * 30_000 - 3 * 24 * 60 * MINUTE;
  const report = progress(`seed ${label}`, 'events', total);
  const started = performance.now();
  let written = 0;

  const wsEvents: { event: WorkspaceEvent; time: string }[] = [
    { event: { type: 'WorkspaceCreated', data: { workspaceId, name: `Bench ${label}`, freeAllowance: candidates, createdAt: iso(start - 60 * MINUTE) } }, time: iso(start - 60 * MINUTE) },
    { event: { type: 'WorkspaceVerified', data: { workspaceId, verifiedAt: iso(start - 59 * MINUTE) } }, time: iso(start - 59 * MINUTE) },
  ];
  const credentials: string[] = [];
  const apiKeyIds: string[] = [];
  // One secret for every key: only its hash is recorded, as the service does.
  const secret = randomBytes(32).toString('base64url');
  const secretHash = hashSecret(secret);
  for (let index = 0; index < keys; index += 1) {
    const apiKeyId = ids.apiKey();
    const { key } = generateApiKey('live');
    credentials.push(`${key}:${secret}`);
    apiKeyIds.push(apiKeyId);
    const issuedAt = iso(start - 58 * MINUTE);
    wsEvents.push({ event: { type: 'ApiKeyIssued', data: { workspaceId, apiKeyId, mode: 'live', key, secretHash, issuedAt } }, time: issuedAt });
  }
  let workspaceRevision: ExpectedRevision = 'no_stream';
  for (let offset = 0; offset < wsEvents.length; offset += 500) {
    const slice = wsEvents.slice(offset, offset + 500);
    const result = await store.appendToStream(workspaceStream(workspaceId), slice.map(({ event, time }) => toNew(event, time)), { expectedRevision: workspaceRevision });
    workspaceRevision = result.nextRevision;
    written += slice.length;
  }
  for (const [index, assessmentId] of assessmentIds.entries()) {
    const createdAt = iso(start - 30 * MINUTE);
    const event: AssessmentEvent = {
      type: 'AssessmentCreated',
      data: { assessmentId, workspaceId, name: `Bench assessment ${index + 1}`, tests: assessmentTests[index] ?? [], deadline: null, inviteToken: ids.token(), createdAt },
    };
    await store.appendToStream(assessmentStream(assessmentId), [toNew(event, createdAt)], { expectedRevision: 'no_stream' });
    written += 1;
  }
  report(written);

  /** Every event of one append: the new streams of `count` candidates from `first`, all on one assessment. */
  const buildAppend = (first: number, count: number): { appends: StreamAppend[]; events: number } => {
    const assessmentIndex = assessmentOf(first);
    const assessmentId = assessmentIds[assessmentIndex] ?? '';
    const assessmentName = `Bench assessment ${assessmentIndex + 1}`;
    const tests = assessmentTests[assessmentIndex] ?? [];
    const claims: StreamAppend[] = [];
    const lives: StreamAppend[] = [];
    const added: NewEvent[] = [];
    const allowance: NewEvent[] = [];
    for (let candidate = first; candidate < first + count; candidate += 1) {
      const candidateId = ids.candidate();
      const email = `candidate-${candidate}@bench.example.com`;
      const firstName = `First${candidate}`;
      const surname = `Surname${candidate}`;
      const ref: CandidateRef = { id: candidateId, email, firstName, surname };
      const base = { candidateId, workspaceId, mode: 'live' as const };
      const registeredAt = start + candidate * 30_000;
      const startedAt = registeredAt + 10 * MINUTE;
      const done = (test: number) => startedAt + (test + 1) * 20 * MINUTE;
      const completedAt = done(tests.length - 1);
      const unlockedAt = completedAt + 24 * 60 * MINUTE;
      const resultIds = tests.map(() => ids.result());

      const claim: CandidateEmailEvent = { type: 'CandidateEmailClaimed', data: { workspaceId, email, candidateId, mode: 'live', claimedAt: iso(registeredAt) } };
      claims.push({ streamId: candidateEmailStream(workspaceId, email), expectedRevision: 'no_stream', events: [toNew(claim, iso(registeredAt))] });

      const life: { event: CandidateEvent; at: number }[] = [
        { event: { type: 'CandidateCreated', data: { ...base, email, firstName, surname, createdAt: iso(registeredAt) } }, at: registeredAt },
        {
          event: { type: 'CandidateRegistered', data: { ...base, assessmentId, assessmentName, tests, invitationId: null, registeredAt: iso(registeredAt) } },
          at: registeredAt,
        },
        { event: { type: 'AssessmentStarted', data: { ...base, assessmentId, candidate: ref, assessmentName, startedAt: iso(startedAt) } }, at: startedAt },
        ...tests.map((test, index) => ({
          event: {
            type: 'TestCompleted' as const,
            data: { ...base, assessmentId, resultId: resultIds[index] ?? '', candidate: ref, assessmentName, test, completedAt: iso(done(index)), scores: scoresFor(candidate, index) },
          },
          at: done(index),
        })),
        { event: { type: 'AssessmentCompleted', data: { ...base, assessmentId, candidate: ref, assessmentName, completedAt: iso(completedAt) } }, at: completedAt },
        {
          event: {
            type: 'ResultUnlocked',
            data: { ...base, assessmentId, resultId: resultIds[0] ?? '', candidate: ref, assessmentName, unlockedAt: iso(unlockedAt), charged: false },
          },
          at: unlockedAt,
        },
      ];
      lives.push({ streamId: candidateStream(candidateId), expectedRevision: 'no_stream', events: life.map(({ event, at }) => toNew(event, iso(at))) });

      const addedEvent: AssessmentEvent = {
        type: 'AssessmentCandidateAdded',
        data: { assessmentId, workspaceId, candidateId, email, mode: 'live', invitationId: null, addedAt: iso(registeredAt) },
      };
      added.push(toNew(addedEvent, iso(registeredAt)));
      const used: WorkspaceEvent = { type: 'FreeAllowanceUsed', data: { workspaceId, candidateId, resultId: resultIds[0] ?? '', usedAt: iso(unlockedAt) } };
      allowance.push(toNew(used, iso(unlockedAt)));
    }
    // Shared streams take `any`: two appends are in flight, the store still orders and numbers them.
    const appends: StreamAppend[] = [
      ...claims, ...lives,
      { streamId: assessmentStream(assessmentId), expectedRevision: 'any', events: added },
      { streamId: workspaceStream(workspaceId), expectedRevision: 'any', events: allowance },
    ];
    return { appends, events: appends.reduce((sum, append) => sum + append.events.length, 0) };
  };

  // Batches never straddle two assessments.
  const batches: [number, number][] = [];
  for (let first = 0; first < candidates;) {
    const end = Math.min(candidates, first + CANDIDATES_PER_APPEND, (assessmentOf(first) + 1) * PER_ASSESSMENT);
    batches.push([first, end - first]);
    first = end;
  }
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < batches.length) {
      const [first, count] = batches[next] ?? [0, 0];
      next += 1;
      const { appends, events } = buildAppend(first, count);
      await store.appendToStreams(appends);
      written += events;
      report(written);
    }
  }));
  report(written, true);
  const seconds = (performance.now() - started) / 1000;
  if (written !== total) throw new Error(`seeding wrote ${written} events, expected ${total}`);
  return { workspaceId, credentials, apiKeyIds, candidates, assessments, events: written, seconds, eventsPerSecond: written / seconds };
};
