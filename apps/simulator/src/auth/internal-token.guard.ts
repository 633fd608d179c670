import { type CanActivate, Controller, type ExecutionContext, Inject, Injectable, type Type, UseGuards, applyDecorators } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CONFIG } from '#commands';
import { apiError, bearerMatcher } from '#http';
import type { ServiceConfig } from '#platform';

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

/** A controller of the internal JSON API: every route needs the internal token, then the given guards pass. */
export const InternalController = (path = 'internal', ...guards: Type<CanActivate>[]) => applyDecorators(Controller(path), UseGuards(InternalTokenGuard, ...guards));
