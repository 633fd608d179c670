import { createHash, timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BullBoardFastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Messaging } from '#messaging';

export const DASHBOARD_PATH = '/internal/queues';
export const DASHBOARD_TOKEN_COOKIE = 'internal_token';
const COOKIE = DASHBOARD_TOKEN_COOKIE;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

const cookieToken = (header: string | undefined): string | null => {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return decodeURIComponent(value.join('='));
  }
  return null;
};

/**
 * The BullMQ dashboard (bull-board) on the internal port, behind the internal token: a Bearer header,
 * or, for a browser, `?token=` once (kept in an HttpOnly cookie scoped to the dashboard).
 */
export const mountQueueDashboard = async (instance: FastifyInstance, messaging: Messaging, internalToken: string): Promise<void> => {
  const expected = digest(internalToken);
  const valid = (token: string | null | undefined): boolean => typeof token === 'string' && timingSafeEqual(digest(token), expected);
  const serverAdapter = new BullBoardFastifyAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({ queues: Object.values(messaging.queues).map((queue) => new BullMQAdapter(queue)), serverAdapter });
  await instance.register(async (scope) => {
    scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
      const query = (request.query as Record<string, unknown> | undefined)?.token;
      if (valid(bearer) || valid(cookieToken(request.headers.cookie))) return;
      if (typeof query === 'string' && valid(query)) {
        void reply.header('Set-Cookie', `${COOKIE}=${encodeURIComponent(query)}; Path=${DASHBOARD_PATH}; HttpOnly; SameSite=Strict`);
        return;
      }
      await reply.status(401).send({ error: { code: 'unauthorized', message: 'The internal token is missing or wrong.' } });
    });
    await scope.register(serverAdapter.registerPlugin(), { prefix: DASHBOARD_PATH });
  });
};
