import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Observable, catchError, from, mergeMap, of } from 'rxjs';
import { apiError } from '../errors/api-error.js';
import { fingerprint, validateIdempotencyKey } from './idempotency-key.js';
import type { IdempotencyScope, IdempotentRequest, RedisIdempotencyStore } from './redis-idempotency-store.js';

/** Whose keys these are (keys belong to the workspace) and in which mode the request runs. */
export interface IdempotencyOwner {
  workspaceId: string;
  mode: IdempotentRequest['mode'];
}

/**
 * The `Idempotency-Key` rules (API document 4.3) in the documented order: 400
 * invalid_idempotency_key, the route's `precondition` (404), then 409 from the record; later refusals
 * (422s) leave the key unused. Only 200 answers are replayed. Runs after RequiredJsonBody: the
 * fingerprint is over the parsed body, whatever its spacing and key order.
 */
export abstract class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly store: RedisIdempotencyStore) {}

  protected abstract owner(request: FastifyRequest): IdempotencyOwner;

  /** A refusal that must come before the idempotency record is looked at. */
  protected abstract precondition(request: FastifyRequest): Promise<void>;

  /** Asked once the answer is stored, for what happened while the request ran: false deletes it again. */
  protected keepAnswer(_request: FastifyRequest, _body: unknown, _startedAt: number): Promise<boolean> {
    return Promise.resolve(true);
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const key = validateIdempotencyKey(request.headers['idempotency-key']);
    if (!key.ok) throw apiError('invalid_idempotency_key');
    await this.precondition(request);
    if (key.key === null) return next.handle();

    const { workspaceId, mode } = this.owner(request);
    const scope: IdempotencyScope = { workspaceId, key: key.key };
    // The routed path: ALT_BASE_PATH is already stripped, so `/api/v1/…` and `/v1/…` agree.
    const idempotent: IdempotentRequest = { mode, fingerprint: fingerprint(request.url.split('?')[0] ?? '', request.body) };
    const startedAt = Date.now();
    const begun = await this.store.begin(scope, idempotent);
    if (begun.kind === 'replay') {
      void context.switchToHttp().getResponse<FastifyReply>().header('Idempotent-Replayed', 'true');
      return of(begun.response.body);
    }
    if (begun.kind === 'reused') throw apiError('idempotency_key_reused');
    if (begun.kind === 'in_progress') throw apiError('idempotency_request_in_progress', undefined, { 'Retry-After': String(begun.retryAfterSeconds) });
    return next.handle().pipe(
      mergeMap((body) => from(this.store.complete(scope, idempotent, { status: 200, body })
        .then(async () => {
          if (!(await this.keepAnswer(request, body, startedAt))) await this.store.forget(scope, idempotent);
        })
        .then(() => body))),
      catchError((error: unknown) =>
        // A refused request leaves the key unused.
        from(this.store.abandon(scope, idempotent).catch(() => undefined).then(() => { throw error; })),
      ),
    );
  }
}
