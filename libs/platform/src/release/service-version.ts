import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'hiring-test-platform';

/**
 * The version of the public API contract this release serves (the OpenAPI document's `info.version`):
 * it moves with the contract (additive minor versions), the release (package.json) with the code.
 * Both are shown side by side: the start banner, `GET /internal/health`.
 */
export const API_VERSION = '1.2.0';

/**
 * The release this code is, read from the root package.json at run time: one place to change, the
 * same answer from the source (tests) and from dist/. Looked up from this file upwards, so it holds
 * wherever the tree is checked out or copied. Read at each call (at start, by a health request): no
 * cache to keep in step.
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
