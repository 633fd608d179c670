import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The libraries' layers point one way (docs/architecture.md, Layout). This reads every TypeScript
 * file of a library, tests and test support included, and lists the imports that point the wrong
 * way: by name (`#lib`, `#lib/path.js`) or by a relative path that leaves the library's folder.
 */

const LIBS = dirname(fileURLToPath(import.meta.url));

/** Module specifiers of static imports and re-exports, side-effect imports, dynamic imports, require and Jest's module mocks. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bjest\.(?:mock|unstable_mockModule)\s*\(\s*)(['"])([^'"\n]+)\1/g;

const sourceFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.[cm]?ts$/.test(entry.name) ? [path] : [];
  });

/** The library an import reaches (`http` for `#http/redis/x.js` or `../../http/src/x.js`), or null for a package. */
const libraryOf = (file: string, specifier: string): string | null => {
  const named = /^#([a-z-]+)(?:\/|$)/.exec(specifier);
  if (named) return named[1] ?? null;
  if (!specifier.startsWith('.')) return null;
  const [lib] = relative(LIBS, resolve(dirname(file), specifier)).split(sep);
  return lib ?? null;
};

/** Every import of a library's files that reaches another of our libraries, as `file: specifier`. */
const importsOfOthers = (lib: string, allowed: (other: string) => boolean): string[] =>
  sourceFiles(join(LIBS, lib)).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(SPECIFIER)]
      .map((match) => match[2] ?? '')
      .filter((specifier) => {
        const other = libraryOf(file, specifier);
        return other !== null && other !== lib && !allowed(other);
      })
      .map((specifier) => `${relative(LIBS, file)}: ${specifier}`));

describe('the layers of libs/', () => {
  it('finds the files and the imports it judges', () => {
    const platform = sourceFiles(join(LIBS, 'platform'));
    expect(platform.length).toBeGreaterThan(5);
    expect(libraryOf(join(LIBS, 'domain/src/shared/x.ts'), '#http/errors/error-codes.js')).toBe('http');
    expect(libraryOf(join(LIBS, 'domain/src/shared/x.ts'), '../../../http/src/index.js')).toBe('http');
    expect(libraryOf(join(LIBS, 'domain/src/shared/x.ts'), '../errors.js')).toBe('domain');
    expect(libraryOf(join(LIBS, 'domain/src/shared/x.ts'), 'node:crypto')).toBeNull();
    const found = (source: string) => [...source.matchAll(SPECIFIER)].map((match) => match[2]);
    expect(found(`import type { A } from '#a';\nexport { B } from "#b/x.js";\nimport '#c';\nawait import('#d');\njest.unstable_mockModule('#e', f);`))
      .toEqual(['#a', '#b/x.js', '#c', '#d', '#e']);
  });

  it('libs/platform imports none of our libraries', () => {
    expect(importsOfOthers('platform', () => false)).toEqual([]);
  });

  it.each(['commands', 'messaging'])('libs/%s does not import libs/http', (lib) => {
    expect(importsOfOthers(lib, (other) => other !== 'http')).toEqual([]);
  });

  it('libs/domain imports none of our other libraries, its test support included', () => {
    expect(importsOfOthers('domain', () => false)).toEqual([]);
  });
});
