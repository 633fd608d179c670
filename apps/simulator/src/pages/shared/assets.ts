import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: string;
  type: string;
  /** In the link, so a new build is fetched at once although assets are cached. */
  version: string;
}

const load = (name: string, type: string): Asset => {
  // Copied next to the compiled pages by scripts/copy-assets.mjs (tsc copies TypeScript only).
  const body = readFileSync(fileURLToPath(new URL(`../assets/${name}`, import.meta.url)), 'utf8');
  return { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 12) };
};

export const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ['app.css', load('app.css', 'text/css; charset=utf-8')],
  ['app.js', load('app.js', 'text/javascript; charset=utf-8')],
]);

export const assetHref = (name: string): string => `/assets/${name}?v=${ASSETS.get(name)?.version ?? '0'}`;
