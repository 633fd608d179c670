import { lookup } from 'node:dns/promises';

const LOOKUP_WAIT_MS = 2000;

/**
 * Every address a host name resolves to now, with the system resolver; none when it does not
 * resolve or not within `waitMs` (a save must not hang on a slow DNS: delivery resolves again).
 */
export const resolveHostNow = async (host: string, waitMs = LOOKUP_WAIT_MS): Promise<{ address: string }[]> => {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<{ address: string }[]>((done) => { timer = setTimeout(() => done([]), waitMs); });
  return Promise.race([lookup(host, { all: true, verbatim: true }).catch(() => []), timedOut]).finally(() => clearTimeout(timer));
};
