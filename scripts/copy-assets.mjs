// tsc compiles TypeScript only; the PGlite worker is plain JavaScript run by worker_threads.
import { copyFileSync, mkdirSync } from 'node:fs';
const target = 'dist/libs/event-store/src/embedded';
mkdirSync(target, { recursive: true });
copyFileSync('libs/event-store/src/embedded/pglite-worker.mjs', `${target}/pglite-worker.mjs`);
