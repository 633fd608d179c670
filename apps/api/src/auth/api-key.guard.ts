import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type Mode } from '#domain';
import { type ApiCredential, FailedAuthThrottle, parseAuthorization } from '#http';
import { hashSecret, secretMatches } from '#platform';
import { ApiKeyCache, type ApiKeyDocument } from '#read-models';

export interface AuthenticatedKey {
  apiKeyId: string;
  /** The public part presented (RateLimitGuard refuses it when it was regenerated away). */
  key: string;
  workspaceId: string;
  mode: Mode;
}

export type AuthenticatedRequest = FastifyRequest & { apiKey: AuthenticatedKey };

// Compared against when no key is held or found, so an unknown key costs the same as a wrong secret.
const DECOY_HASH = hashSecret('decoy-secret-for-unknown-keys');

/**
 * Authenticates (both header forms); only a failure meets the per-address throttle
 * (failed-auth-throttle.ts): 401, or 429 past its limit. RateLimitGuard runs next.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly keys: ApiKeyCache, private readonly failedAuth: FailedAuthThrottle) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    const credential = parseAuthorization(typeof header === 'string' ? header : undefined);
    const key = credential ? await this.authenticate(credential) : null;
    if (key === null) throw await this.failedAuth.refusal(request.ip);
    request.apiKey = { apiKeyId: key.id, key: key.key, workspaceId: key.workspaceId, mode: key.mode };
    return true;
  }

  /**
   * A held key with its secret costs no round trip. Every failure costs one store read (another
   * process may have just changed the key) and two constant-time comparisons, against the decoy when
   * there is no key: the answer time does not tell a real key from an unknown one.
   */
  private async authenticate({ key, secret }: ApiCredential): Promise<ApiKeyDocument | null> {
    const held = this.keys.held(key);
    if (secretMatches(secret, held?.secretHash ?? DECOY_HASH) && held !== undefined) return held;
    const stored = await this.keys.reread(key);
    return secretMatches(secret, stored?.secretHash ?? DECOY_HASH) && stored !== null ? stored : null;
  }
}
