import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'hiring-test-platform';

/** The public API contract's version (OpenAPI `info.version`), shown beside the release's own (package.json). */
export const API_VERSION = '1.2.0';

/**
 * The release, from the root package.json found upwards from this file: the same from the source and from
 * dist/, wherever the tree is. Read at each call (at start, by a health request): no cache to keep in step.
 */
export const serviceVersion = (): string => {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json here (or not ours): look one directory up.
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`package.json of ${PACKAGE_NAME} not found above ${fileURLToPath(import.meta.url)}`);
    directory = parent;
  }
};
