import { jest } from '@jest/globals';
import { api, internal } from './support/client.js';
import { createAssessment } from './support/core-helpers.js';
import { personKeys, settled, tablesMentioning } from './support/erasure-checks.js';
import { OwnRedis } from './support/faults-processes.js';
import { freshDatabase } from './support/processes.js';
import { startService, type RunningService } from './support/service.js';

jest.setTimeout(240_000);

/**
 * Erasure follows from the log, so neither an outage nor a crash can skip it: a test candidate
 * deleted while Redis is down (the erasure cannot scrub Redis, so it is retried) whose process is
 * then killed with SIGKILL is erased by the next process from the deletion event in the log.
 */
describe('erasure of a deleted test candidate survives an outage and kill -9 (e2e, PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let redis: OwnRedis;
  let service: RunningService | null = null;
  const secret = `erasure-crash-${Date.now()}`;
  const prefix = `erasure-crash-${Date.now().toString(36)}`;
  const start = async (): Promise<RunningService> =>
    startService({ EVENT_STORE_URL: database.url, SERVICE_SECRET: secret, REDIS_URL: redis.url, QUEUE_PREFIX: prefix, LOG_LEVEL: 'info' });

  beforeAll(async () => {
    database = await freshDatabase();
    redis = await OwnRedis.start();
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await redis?.close();
    await database?.drop();
  });

  it('is retried until it is done, by the next process after a crash', async () => {
    service = await start();
    const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const person = { email: `crash.${unique}@example.com`, firstName: `Ingrid${unique}`, surname: `Gone${unique}` };
    const app = internal(service);
    const ws = await app.workspace({ name: 'Erasure after a crash' });
    const assessment = await createAssessment(service, ws.sandbox, { name: 'Erasure after a crash' });
    const invited = await api(service, ws.sandbox).post(`/v1/assessments/${assessment.id}/invitations`, { candidates: [person] });
    const registered = await app.register({ invitationUrl: invited.body.data[0].invitationUrl });
    const candidateId: string = registered.body.data.candidateId;

    await redis.crash();
    const deleted = await app.call('DELETE', `/internal/candidates/${candidateId}`);
    expect(deleted.status).toBe(204);
    expect((await api(service, ws.sandbox).get(`/v1/candidates/${candidateId}`)).status).not.toBe(200);
    // The erasure cannot scrub Redis: it stops before the keys, which are retired, not destroyed.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await personKeys(database.url, secret, ws.id, person.email)).toEqual({ live: 1, destroyed: 0 });
    expect(JSON.stringify((await internal(service).call('GET', `/internal/streams/candidate-${candidateId}`)).body)).toContain(person.email);

    await service.stop('SIGKILL');
    await redis.start();
    service = await start();
    expect(await settled(() => personKeys(database.url, secret, ws.id, person.email), (keys) => keys.destroyed === 1 && keys.live === 0, 20_000))
      .toEqual({ live: 0, destroyed: 1 });
    expect(await tablesMentioning(database.url, [person.email, person.firstName, person.surname])).toEqual([]);
    const history = await internal(service).call('GET', `/internal/streams/candidate-${candidateId}`);
    expect(JSON.stringify(history.body)).not.toContain(person.email);
    expect(JSON.stringify(history.body)).toContain('[erased]');
  });
});
