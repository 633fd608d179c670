import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { FailedAuthThrottle, RedisRateLimiter, apiError, rateLimitHeaders } from '#http';
import { ApiKeyCache } from '#read-models';
import type { AuthenticatedRequest } from './api-key.guard.js';

/**
 * Counts the request against its key's sliding window, after ApiKeyGuard; every authenticated answer
 * carries the headers. A key regenerated away is refused here as a failed authentication even before
 * this process's cache hears of it.
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
