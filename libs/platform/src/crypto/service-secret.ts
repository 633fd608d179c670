import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The service secret signs cursors and seals webhook secrets. Separate processes must share it
 * (SERVICE_SECRET); the single-process default keeps a generated one in DATA_DIR so that cursors
 * and sealed secrets survive restarts.
 */
export const resolveServiceSecret = (configured: string | null, dataDir: string): string => {
  if (configured) return configured;
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'service-secret');
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    const secret = randomBytes(32).toString('base64url');
    writeFileSync(path, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  }
};
