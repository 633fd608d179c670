import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from './html.js';

/** No inline script or style, no other origin: what a page can load or post to. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  // Pages show secrets once and the state of the moment: nothing is kept by the browser or a proxy.
  'Cache-Control': 'no-store',
};

export const cookiesOf = (request: FastifyRequest): Map<string, string> => {
  const cookies = new Map<string, string>();
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
};

const forms = new WeakMap<FastifyRequest, URLSearchParams>();

/** The body of a posted form (bodies reach handlers as text, see configureFastify). */
export const formOf = (request: FastifyRequest): URLSearchParams => {
  let form = forms.get(request);
  if (!form) {
    form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
    forms.set(request, form);
  }
  return form;
};

export const field = (request: FastifyRequest, name: string): string => formOf(request).get(name) ?? '';

/** A query parameter as text; one holding U+0000 names nothing that can exist (no store holds one) and reads as absent. */
export const queryParam = (request: FastifyRequest, name: string): string => {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && !value.includes('\u0000') ? value : '';
};

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
}

export const cookie = (name: string, value: string, options: CookieOptions): string =>
  `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${options.maxAgeSeconds}${options.secure ? '; Secure' : ''}`;

export const addCookie = (reply: FastifyReply, header: string): void => {
  const existing = reply.getHeader('Set-Cookie');
  const list = Array.isArray(existing) ? existing.map(String) : existing === undefined ? [] : [String(existing)];
  void reply.header('Set-Cookie', [...list, header]);
};

export const sendPage = (reply: FastifyReply, page: Html, status = 200): void => {
  void reply.status(status).headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(page.text);
};

/** 303: the browser follows with a GET, so reloading the next page never posts the form again. */
export const redirectTo = (reply: FastifyReply, location: string): void => {
  void reply.status(303).headers(SECURITY_HEADERS).header('Location', location).send();
};

/**
 * Only a path of this application: `next` must not send anyone to another site. Printable ASCII
 * only, because browsers drop tabs and line breaks from URLs (`/<TAB>/evil.example` is `//evil.example`).
 */
export const localPath = (value: string, fallback: string): string => (/^\/(?![/\\])[\x21-\x7e]*$/.test(value) ? value : fallback);

/**
 * A browser says where a form came from: `Origin` (every POST of a modern browser) or, failing
 * that, `Sec-Fetch-Site`. A request that names another origin is refused; the CSRF token is the
 * second lock for clients that send neither.
 */
export const cameFromHere = (request: FastifyRequest, appUrl: string): boolean => {
  const origin = request.headers.origin;
  if (typeof origin === 'string') {
    if (origin === 'null') return false;
    try {
      const from = new URL(origin);
      return from.host === request.headers.host || from.origin === new URL(appUrl).origin;
    } catch {
      return false;
    }
  }
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
};
