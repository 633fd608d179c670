import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { ERROR_MESSAGES, bearerMatcher, errorBody } from '#http';
import { cookiesOf } from '../pages/shared/page-http.js';
import { liveSession, SessionRevocations } from '../pages/shared/session-revocations.js';
import { PageSessions, SESSION_COOKIE } from '../pages/shared/session.js';

/**
 * A path the internal application does not serve answers 401 to a request that is not signed in,
 * like every path it does serve: only the internal token (or a live page session) learns which paths
 * exist. Signed in, it is 404 as before. A session that cannot be checked (database down) counts as
 * not signed in.
 */
export const refuseUnknownPathsBeforeSignIn = (instance: FastifyInstance, app: NestFastifyApplication, internalToken: string): void => {
  const bearerMatches = bearerMatcher(internalToken);
  const sessions = app.get(PageSessions);
  const revocations = app.get(SessionRevocations);
  instance.addHook('onRequest', async (request, reply) => {
    if (!request.is404 || bearerMatches(request.headers.authorization)) return;
    const session = await liveSession(sessions, revocations, cookiesOf(request).get(SESSION_COOKIE), Date.now()).catch(() => null);
    if (session) return;
    await reply.status(401).send(errorBody('unauthorized', ERROR_MESSAGES.unauthorized));
  });
};
