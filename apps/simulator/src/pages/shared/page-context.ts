import type { FastifyRequest } from 'fastify';
import type { Flash, PageSession } from './session.js';

/** What every page needs to draw its frame and its forms. */
export interface PageContext {
  session: PageSession;
  csrf: string;
  flash: Flash | null;
  clockEnabled: boolean;
  /** Path and query of this request: where a form's errors come back to. */
  here: string;
}

const contexts = new WeakMap<FastifyRequest, PageContext>();

export const attachContext = (request: FastifyRequest, context: PageContext): void => {
  contexts.set(request, context);
};

/** Set by PageSessionGuard, which runs before every page handler. */
export const pageContext = (request: FastifyRequest): PageContext => {
  const context = contexts.get(request);
  if (!context) throw new Error('page handler ran without PageSessionGuard');
  return context;
};

export const contextOf = (request: FastifyRequest): PageContext | undefined => contexts.get(request);

/** The visitor must sign in first; they come back to `next` afterwards. */
export class SignInRequired extends Error {
  constructor(readonly next: string) {
    super('sign-in required');
  }
}

/** A form that did not come from these pages (another origin, or no valid CSRF token). */
export class CrossSiteRefused extends Error {
  constructor() {
    super('cross-site request refused');
  }
}
