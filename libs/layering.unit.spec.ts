import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The layers of the service (docs/architecture.md, Layout), as one table: what each library and
 * each process may import of our libraries. This reads every TypeScript file, tests and test
 * support included, and lists the imports the table does not allow: by name (`#lib`,
 * `#lib/path.js`) or by a relative path that leaves the folder.
 */

const LIBS = dirname(fileURLToPath(import.meta.url));
const APPS = join(LIBS, '..', 'apps');

type Lib = 'platform' | 'domain' | 'event-store' | 'commands' | 'read-models' | 'messaging' | 'http' | 'runtime';

const BELOW_PEERS: readonly Lib[] = ['platform', 'domain', 'event-store'];

/**
 * Bottom to top. The write side (commands), the read side (read-models) and the side effects
 * (messaging) are peers: none imports another, what two of them share is pure and lives in the
 * domain (the webhook envelope, the result views) or in platform. http is the edge's glue; runtime,
 * the composition root, is the only library that sees them all.
 */
const ALLOWED: Record<Lib, readonly Lib[]> = {
  platform: [],
  domain: [],
  'event-store': ['platform'],
  commands: BELOW_PEERS,
  'read-models': BELOW_PEERS,
  messaging: BELOW_PEERS,
  http: ['platform', 'domain'],
  runtime: [...BELOW_PEERS, 'commands', 'read-models', 'messaging', 'http'],
};

/**
 * The processes, over the libraries. The public API knows the command bus and the query side, not
 * the event store or the side effects; the internal application (simulator) shows everything; the
 * worker only starts what runtime wires; standalone runs the API and the internal application in
 * one process, the only process that imports others.
 */
const APPS_ALLOWED: Record<string, readonly string[]> = {
  api: ['lib:platform', 'lib:domain', 'lib:commands', 'lib:read-models', 'lib:http', 'lib:runtime'],
  worker: ['lib:platform', 'lib:runtime'],
  standalone: ['lib:platform', 'lib:runtime', 'app:api', 'app:simulator'],
  audit: ['lib:platform', 'lib:domain', 'lib:event-store', 'lib:read-models', 'lib:runtime'],
  simulator: ['lib:platform', 'lib:domain', 'lib:event-store', 'lib:commands', 'lib:read-models', 'lib:messaging', 'lib:http', 'lib:runtime'],
};

/** Module specifiers of static imports and re-exports, side-effect imports, dynamic imports, require and Jest's module mocks. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bjest\.(?:mock|unstable_mockModule)\s*\(\s*)(['"])([^'"\n]+)\1/g;

const sourceFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.[cm]?ts$/.test(entry.name) ? [path] : [];
  });

const foldersOf = (root: string): string[] =>
  readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();

/**
 * What an import reaches: `lib:http` for `#http/redis/x.js` or `../../http/src/x.js` from a library,
 * `app:api` for a relative path into apps/api, or null for a package or a file of the same folder.
 */
const targetOf = (file: string, specifier: string): string | null => {
  const named = /^#([a-z-]+)(?:\/|$)/.exec(specifier);
  if (named) return `lib:${named[1] ?? ''}`;
  if (!specifier.startsWith('.')) return null;
  const target = resolve(dirname(file), specifier);
  for (const [kind, root] of [['lib', LIBS], ['app', APPS]] as const) {
    const [folder] = relative(root, target).split(sep);
    if (folder !== undefined && folder !== '..' && folder !== '') return `${kind}:${folder}`;
  }
  return 'outside';
};

/** Every import of a folder's files that reaches another of our folders and is not `allowed` (`lib:x`, `app:y`), as `file: specifier`. */
const forbiddenImports = (root: string, folder: string, self: string, allowed: readonly string[]): string[] =>
  sourceFiles(join(root, folder)).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(SPECIFIER)]
      .map((match) => match[2] ?? '')
      .filter((specifier) => {
        const target = targetOf(file, specifier);
        return target !== null && target !== self && !allowed.includes(target);
      })
      .map((specifier) => `${relative(join(LIBS, '..'), file)}: ${specifier}`));

describe('the layers', () => {
  it('finds the files and the imports it judges', () => {
    expect(sourceFiles(join(LIBS, 'platform')).length).toBeGreaterThan(5);
    const domainFile = join(LIBS, 'domain/src/shared/x.ts');
    expect(targetOf(domainFile, '#http/errors/error-codes.js')).toBe('lib:http');
    expect(targetOf(domainFile, '../../../http/src/index.js')).toBe('lib:http');
    expect(targetOf(domainFile, '../errors.js')).toBe('lib:domain');
    expect(targetOf(domainFile, '../../../../apps/api/src/main.js')).toBe('app:api');
    expect(targetOf(domainFile, 'node:crypto')).toBeNull();
    const found = (source: string) => [...source.matchAll(SPECIFIER)].map((match) => match[2]);
    expect(found(`import type { A } from '#a';\nexport { B } from "#b/x.js";\nimport '#c';\nawait import('#d');\njest.unstable_mockModule('#e', f);`))
      .toEqual(['#a', '#b/x.js', '#c', '#d', '#e']);
  });

  it('has a row for every library and every process', () => {
    expect(foldersOf(LIBS)).toEqual(Object.keys(ALLOWED).sort());
    expect(foldersOf(APPS)).toEqual(Object.keys(APPS_ALLOWED).sort());
  });

  it('points one way: no library may import one that may import it, directly or not', () => {
    const reaches = (from: Lib, seen = new Set<Lib>()): Set<Lib> => {
      for (const lib of ALLOWED[from]) if (!seen.has(lib)) reaches(lib, seen.add(lib));
      return seen;
    };
    const cycles = (Object.keys(ALLOWED) as Lib[]).filter((lib) => reaches(lib).has(lib));
    expect(cycles).toEqual([]);
  });

  it.each(Object.entries(ALLOWED))('libs/%s imports only %j of our libraries, tests and test support included', (lib, allowed) => {
    expect(forbiddenImports(LIBS, lib, `lib:${lib}`, allowed.map((other) => `lib:${other}`))).toEqual([]);
  });

  it.each(Object.entries(APPS_ALLOWED))('apps/%s imports only %j', (app, allowed) => {
    expect(forbiddenImports(APPS, app, `app:${app}`, allowed)).toEqual([]);
  });
});
