import type { Findings } from './findings.js';

/**
 * The same problem logged with its stack more often than this in one process is a flood (a stack per
 * job after a Redis restart: "Missing key for job", "Stream isn't writeable"), not one line per problem.
 */
const STACKS_PER_PROBLEM = 3;

interface LogLine {
  level?: number;
  msg?: string;
  err?: { message?: string; stack?: string; type?: string };
}

/** A problem's identity: its message and the first words of its error, without ids and numbers. */
const problemOf = (line: LogLine): string =>
  `${line.msg ?? ''}: ${(line.err?.message ?? '').split('\n')[0]?.replace(/[0-9a-f-]{8,}|\d+/gi, '#').slice(0, 80)}`;

/**
 * What the processes wrote under faults: every line is pino JSON (one line per problem, never a bare
 * stack or text), and no problem repeats its stack per job. Counts of warnings and errors are noted.
 */
export const checkProcessLogs = (outputs: { name: string; output: string }[], findings: Findings): void => {
  let warnings = 0;
  let errors = 0;
  for (const { name, output } of outputs) {
    const stacks = new Map<string, number>();
    for (const text of output.split('\n')) {
      if (text.trim() === '') continue;
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        findings.add('process logs are pino JSON lines', `${name}: ${text.slice(0, 200)}`);
        continue;
      }
      if (typeof line !== 'object' || line === null || typeof line.level !== 'number') {
        findings.add('process logs are pino JSON lines', `${name}: ${text.slice(0, 200)}`);
        continue;
      }
      if (line.level >= 50) errors += 1;
      else if (line.level >= 40) warnings += 1;
      if (line.err?.stack !== undefined) stacks.set(problemOf(line), (stacks.get(problemOf(line)) ?? 0) + 1);
    }
    for (const [problem, count] of stacks) {
      findings.expect(count <= STACKS_PER_PROBLEM, 'one log line per problem, not a stack per job', () => `${name}: "${problem}" logged with its stack ${count} times`);
    }
  }
  findings.note(`process logs: ${warnings} warnings, ${errors} errors`);
};
