import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { api, internal } from './support/client.js';
import { createAssessment, expectError } from './support/core-helpers.js';
import { startService, type RunningService } from './support/service.js';

jest.setTimeout(180_000);

const AUDIT_ENTRY = resolve('dist/apps/audit/src/main.js');

/** Runs the audit command line beside the running service, as an auditor would on that machine. */
const audit = (service: RunningService, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolveRun) => {
    const env = { ...process.env, DATA_DIR: service.dataDir, INTERNAL_TOKEN: service.internalToken, INTERNAL_PORT: new URL(service.internalUrl).port, LOG_LEVEL: 'warn' };
    execFile(process.execPath, [AUDIT_ENTRY, ...args], { env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolveRun({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });

describe('audit trail (e2e, embedded store, simulated clock)', () => {
  let service: RunningService;
  let app: ReturnType<typeof internal>;

  beforeAll(async () => {
    service = await startService({ SIMULATED_CLOCK: 'true', SEAL_INTERVAL_MS: '300' });
    app = internal(service);
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('answers as-of exactly what the public API answered at each earlier time', async () => {
    const ws = await app.workspace();
    const client = api(service, ws.live);
    const advance = async (): Promise<string> => (await app.call('POST', '/internal/clock', { advanceSeconds: 60 })).body.data.now;
    const before = await advance();
    const assessment = await createAssessment(service, ws.live, { name: 'Audited role' });
    const recorded: { at: string; candidate: unknown; assessment: unknown }[] = [];
    const record = async (candidateId: string | null) => {
      const at = await advance();
      const candidate = candidateId === null ? null : (await client.get(`/v1/candidates/${candidateId}`)).body;
      recorded.push({ at, candidate, assessment: (await client.get(`/v1/assessments/${assessment.id}`)).body });
    };
    await record(null);
    const registered = await app.register({ inviteUrl: assessment.inviteUrl, email: 'time.travel@example.com', firstName: 'Ada', surname: 'Lovelace' });
    const candidateId: string = registered.body.data.candidateId;
    await record(candidateId);
    await app.start(candidateId, assessment.id);
    await record(candidateId);
    const completed = await app.complete(candidateId, assessment.id, assessment.tests[0].slug);
    await record(candidateId);
    await app.unlock(completed.body.data.resultId);
    await record(candidateId);
    await app.close(assessment.id);
    await record(candidateId);

    for (const { at, candidate, assessment: assessmentAnswer } of recorded) {
      const asOfAssessment = await app.call('GET', `/internal/as-of/assessments/${assessment.id}?at=${encodeURIComponent(at)}`);
      expect(asOfAssessment.body).toEqual(assessmentAnswer);
      if (candidate === null) {
        expectError(await app.call('GET', `/internal/as-of/candidates/${candidateId}?at=${encodeURIComponent(at)}`), 404, 'not_found');
      } else {
        expect((await app.call('GET', `/internal/as-of/candidates/${candidateId}?at=${encodeURIComponent(at)}`)).body).toEqual(candidate);
      }
    }
    // The answers did change over time, so the comparison above compared something.
    expect(new Set(recorded.map((entry) => JSON.stringify([entry.candidate, entry.assessment]))).size).toBe(recorded.length);
    expectError(await app.call('GET', `/internal/as-of/assessments/${assessment.id}?at=${encodeURIComponent(before)}`), 404, 'not_found');
    expectError(await app.call('GET', `/internal/as-of/candidates/${candidateId}?at=yesterday`), 400, 'invalid_parameter');
    expectError(await app.call('GET', `/internal/as-of/candidates/${candidateId}`), 400, 'invalid_parameter');
    expectError(await app.call('GET', `/internal/as-of/assessments/${assessment.id}?at=2024-02-30`), 400, 'invalid_parameter');

    // Any stream, at a global position, from the command line beside the running service.
    const stream = (await app.call('GET', `/internal/streams/assessment-${assessment.id}`)).body.data as { position: string; revision: number }[];
    const second = stream[1];
    const folded = await audit(service, ['as-of', `assessment-${assessment.id}`, second?.position ?? '']);
    expect(folded.code).toBe(0);
    expect(JSON.parse(folded.stdout)).toMatchObject({ streamId: `assessment-${assessment.id}`, asOf: { position: second?.position }, revision: 1 });
  });

  it('runs seal, verify and export beside the running service, and verifies the export offline', async () => {
    const sealed = await audit(service, ['seal']);
    expect(sealed.code).toBe(0);
    const seal = JSON.parse(sealed.stdout) as { sequence: number; toPosition: string; publicKey: string; signature: string };
    expect(seal).toMatchObject({ sequence: expect.any(Number), toPosition: expect.stringMatching(/^\d+$/) });

    const verified = await audit(service, ['verify']);
    expect(verified.stdout).toMatch(/ 0 problems/);
    expect(verified.stderr).toMatch(/verify \[#+\] 100\.0%/);
    expect(verified.code).toBe(0);

    const file = join(service.dataDir, 'export.jsonl');
    const keptSeal = join(service.dataDir, 'kept-seal.json');
    writeFileSync(keptSeal, sealed.stdout);
    expect((await audit(service, ['export', '--out', file])).code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ kind: 'header', publicKey: seal.publicKey });
    expect(lines.some((line) => line.kind === 'seal' && line.signature === seal.signature)).toBe(true);
    expect(lines.filter((line) => line.kind === 'event').every((line) => typeof line.hash === 'string')).toBe(true);

    const offline = await audit(service, ['verify', '--file', file, '--seal', keptSeal, '--public-key', seal.publicKey]);
    expect(offline.stdout).toMatch(/ 0 problems/);
    expect(offline.code).toBe(0);

    const tampered = join(service.dataDir, 'tampered.jsonl');
    const exported = readFileSync(file, 'utf8');
    // The export is the log as stored: the person's address and names only in sealed form.
    expect(exported).not.toContain('time.travel@example.com');
    expect(exported).not.toContain('Lovelace');
    const replayed = await audit(service, ['replay']);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain('"email":"time.travel@example.com"');
    writeFileSync(tampered, exported.replace('"name":"Audited role"', '"name":"Forged role"'));
    const caught = await audit(service, ['verify', '--file', tampered]);
    expect(caught.code).toBe(1);
    expect(caught.stdout).toMatch(/first broken link: assessment-\S+ revision 0 \(position \d+\): broken link/);
  });
});
