// tsc compiles TypeScript only; the PGlite worker is plain JavaScript run by worker_threads.
import { copyFileSync, mkdirSync } from 'node:fs';
const target = 'dist/libs/event-store/src/embedded';
mkdirSync(target, { recursive: true });
copyFileSync('libs/event-store/src/embedded/pglite-worker.mjs', `${target}/pglite-worker.mjs`);
// The internal pages' style sheet and script, served by the pages themselves.
mkdirSync('dist/apps/simulator/src/pages/assets', { recursive: true });
for (const name of ['app.css', 'app.js']) copyFileSync(`apps/simulator/src/pages/assets/${name}`, `dist/apps/simulator/src/pages/assets/${name}`);
