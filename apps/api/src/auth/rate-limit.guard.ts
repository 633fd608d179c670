import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { FailedAuthThrottle, RedisRateLimiter, apiError, rateLimitHeaders } from '#http';
import { ApiKeyCache } from '#read-models';
import type { AuthenticatedRequest } from './api-key.guard.js';

/**
 * Counts the request against its key's sliding window; runs after ApiKeyGuard, so requests that
 * fail authentication use no place. Every authenticated answer carries the headers, a 429 too.
 * A key regenerated away (retired on the limiter before the regeneration answered) is refused here
 * even when this process's cache has not yet heard of the change, as ApiKeyGuard would refuse it: a
 * failed authentication of its address (401, or 429 past the address's limit).
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RedisRateLimiter, private readonly keys: ApiKeyCache, private readonly failedAuth: FailedAuthThrottle) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const decision = await this.limiter.consumeUnlessRetired(request.apiKey.apiKeyId, request.apiKey.key);
    if (decision === null) {
      this.keys.invalidate();
      throw await this.failedAuth.refusal(request.ip);
    }
    const headers = rateLimitHeaders(decision);
    void context.switchToHttp().getResponse<FastifyReply>().headers(headers);
    if (!decision.allowed) throw apiError('rate_limited', undefined, headers);
    return true;
  }
}
