import { timingSafeEqual, createHash } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CONFIG } from '#commands';
import { apiError } from '#http';
import type { ServiceConfig } from '#platform';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Every internal route needs `Authorization: Bearer <INTERNAL_TOKEN>`, compared in constant time. */
@Injectable()
export class InternalTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(CONFIG) config: ServiceConfig) {
    this.expected = digest(config.internalToken);
  }

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), this.expected)) throw apiError('unauthorized');
    return true;
  }
}
