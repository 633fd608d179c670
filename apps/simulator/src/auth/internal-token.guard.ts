import { timingSafeEqual, createHash } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CONFIG } from '#commands';
import { apiError } from '#http';
import type { ServiceConfig } from '#platform';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Whether an Authorization header carries `Bearer <token>`, compared in constant time. */
export const bearerMatcher = (token: string): ((header: string | undefined) => boolean) => {
  const expected = digest(token);
  return (header) => {
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    return Boolean(match?.[1]) && timingSafeEqual(digest(match?.[1] ?? ''), expected);
  };
};

/** Every internal route needs `Authorization: Bearer <INTERNAL_TOKEN>`, compared in constant time. */
@Injectable()
export class InternalTokenGuard implements CanActivate {
  private readonly matches: (header: string | undefined) => boolean;

  constructor(@Inject(CONFIG) config: ServiceConfig) {
    this.matches = bearerMatcher(config.internalToken);
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.matches(context.switchToHttp().getRequest<FastifyRequest>().headers.authorization)) throw apiError('unauthorized');
    return true;
  }
}
