import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WORKER_FILE = 'pglite-worker.mjs';
const SOURCE_PATH = join('libs', 'event-store', 'src', 'embedded', WORKER_FILE);

/**
 * The worker is a plain .mjs file (see pglite-worker.mjs). Next to this module is where the build
 * copies it, and where it sits in the source tree (Jest runs the sources). If a build forgot to copy
 * it, the source copy is found by walking up to the repository root.
 */
export function resolveWorkerScript(): URL {
  const beside = new URL(`./${WORKER_FILE}`, import.meta.url);
  if (existsSync(beside)) return beside;
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, SOURCE_PATH);
    if (existsSync(candidate)) return pathToFileURL(candidate);
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  throw new Error(`${WORKER_FILE} not found next to ${fileURLToPath(import.meta.url)}: copy it from ${SOURCE_PATH} in the build`);
}
