import type { Findings } from './findings.js';
import type { Knowledge } from './knowledge.js';
import { ERASED, type LogFacts } from './log.js';
import { type Snapshot, snapshotKey } from './snapshot.js';
import { MODES, type WorkspaceWorld } from './world.js';

type Row = { id: string; email: string; firstName: string; surname: string; assessments: { id: string }[] };

/**
 * The read side against the log: each mode lists exactly its candidates not deleted, one per address;
 * each reads back with their own address and names; deleted ones answer 404; every assessment's
 * `candidateCount` is the number of candidates listed on it.
 */
export const checkReads = (workspace: WorkspaceWorld, snapshot: Snapshot, facts: LogFacts, knowledge: Knowledge, findings: Findings): void => {
  const where = `workspace ${workspace.index}`;
  const emailsByMode = new Map<string, string>();
  for (const mode of MODES) {
    const read = (path: string) => snapshot.get(snapshotKey(workspace, mode, path));
    const listed = (read('/v1/candidates')?.body?.data ?? []) as Row[];
    const expected = [...facts.candidates.values()].filter((candidate) => candidate.workspaceId === workspace.id && candidate.mode === mode && !candidate.deleted);
    const listedIds = new Set(listed.map((row) => row.id));
    for (const candidate of expected) {
      findings.expect(listedIds.has(candidate.id), 'every candidate not deleted is listed in their mode', () => `${where} ${mode}: ${candidate.id} missing from GET /v1/candidates`);
    }
    const expectedIds = new Set(expected.map((candidate) => candidate.id));
    for (const row of listed) {
      findings.expect(expectedIds.has(row.id), 'the candidates list holds only candidates of its mode not deleted', () => `${where} ${mode}: ${row.id} (${row.email})`);
      const other = emailsByMode.get(row.email);
      findings.expect(other === undefined, 'one candidate per workspace, mode and address', () => `${where}: ${row.email} listed as ${other} and ${row.id} (${mode})`);
      emailsByMode.set(row.email, `${row.id} (${mode})`);
    }
    for (const candidate of facts.candidates.values()) {
      if (candidate.workspaceId !== workspace.id || candidate.mode !== mode) continue;
      const single = read(`/v1/candidates/${candidate.id}`);
      if (candidate.deleted) {
        findings.expect(single?.status === 404, 'a deleted candidate answers 404', () => `${where}: ${candidate.id} answered ${single?.status}`);
        continue;
      }
      checkOwnData(where, candidate.id, single, candidate.email, knowledge, findings);
    }
    for (const { id } of workspace.assessments) {
      const assessment = read(`/v1/assessments/${id}`);
      const onIt = (read(`/v1/candidates?assessment=${id}`)?.body?.data ?? []) as Row[];
      const inLog = [...(facts.assessments.get(id)?.candidates ?? [])].filter((candidateId) => facts.candidates.get(candidateId)?.mode === mode);
      findings.expect(
        assessment?.body?.data?.candidateCount === onIt.length && onIt.length === inLog.length,
        'candidateCount equals the candidates listed on the assessment',
        () => `${where} ${mode} assessment ${id}: candidateCount ${assessment?.body?.data?.candidateCount}, listed ${onIt.length}, in the log ${inLog.length}`,
      );
    }
  }
};

/** Their own address (the one the log and the clients know) and names: never `[erased]`. */
const checkOwnData = (
  where: string, id: string, single: { status: number; body: any } | undefined, logEmail: string, knowledge: Knowledge, findings: Findings,
): void => {
  const data = single?.body?.data as Row | undefined;
  if (single?.status !== 200 || data === undefined) {
    findings.add('every candidate not deleted is readable', `${where}: GET /v1/candidates/${id} answered ${single?.status}`);
    return;
  }
  const known = knowledge.candidates.get(id);
  const address = known?.email ?? logEmail;
  findings.expect(data.email === address && data.email !== ERASED, 'a candidate not deleted reads with their own address', () =>
    `${where}: GET /v1/candidates/${id} answered "${data.email}", registered as ${address}`);
  const people = [...(known?.links ?? [])].flatMap((token) => {
    const link = knowledge.links.get(token);
    const person = link?.person;
    // A link shown only as already_invited after a request was lost may carry the lost request's names.
    const unconfirmed = link === undefined || person ? [] : knowledge.unconfirmedPeople.get(`${link.assessmentId} ${link.email}`) ?? [];
    return [...(person ? [person] : []), ...unconfirmed].map(({ firstName, surname }) => `${firstName} ${surname}`);
  });
  const names = `${data.firstName} ${data.surname}`;
  findings.expect(!names.includes(ERASED) && (people.length === 0 || people.includes(names)), 'a candidate not deleted reads with their own names', () =>
    `${where}: GET /v1/candidates/${id} answered "${names}", invited as ${people.join(' or ')}`);
};
