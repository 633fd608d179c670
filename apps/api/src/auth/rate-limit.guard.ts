import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { RedisRateLimiter, apiError, rateLimitHeaders } from '#http';
import type { AuthenticatedRequest } from './api-key.guard.js';

/**
 * Counts the request against its key's sliding window; runs after ApiKeyGuard, so requests that
 * fail authentication use no place. Every authenticated answer carries the headers, a 429 too.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RedisRateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const decision = await this.limiter.consume(request.apiKey.apiKeyId);
    const headers = rateLimitHeaders(decision);
    void context.switchToHttp().getResponse<FastifyReply>().headers(headers);
    if (!decision.allowed) throw apiError('rate_limited', undefined, headers);
    return true;
  }
}
