import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type Mode } from '#domain';
import { FailedAuthThrottle, apiError, parseAuthorization } from '#http';
import { hashSecret, secretMatches } from '#platform';
import { ApiKeyCache } from '#read-models';

export interface AuthenticatedKey {
  apiKeyId: string;
  /** The public part presented (RateLimitGuard refuses it when it was regenerated away). */
  key: string;
  workspaceId: string;
  mode: Mode;
}

export type AuthenticatedRequest = FastifyRequest & { apiKey: AuthenticatedKey };

// Compared against when the key is unknown, so an unknown key costs the same as a wrong secret.
const DECOY_HASH = hashSecret('decoy-secret-for-unknown-keys');

/** Authenticates (both header forms); the rate limit is RateLimitGuard's, which runs next. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly keys: ApiKeyCache, private readonly failedAuth: FailedAuthThrottle) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // Per address, before any credential is looked at: failed-auth-throttle.ts.
    await this.failedAuth.assertAllowed(request.ip);
    const header = request.headers.authorization;
    const credential = parseAuthorization(typeof header === 'string' ? header : undefined);
    const key = credential ? await this.keys.find(credential.key) : null;
    const matches = credential ? secretMatches(credential.secret, key?.secretHash ?? DECOY_HASH) : false;
    if (!key || !matches) {
      await this.failedAuth.recordFailure(request.ip);
      throw apiError('unauthorized');
    }
    request.apiKey = { apiKeyId: key.id, key: key.key, workspaceId: key.workspaceId, mode: key.mode };
    return true;
  }
}
