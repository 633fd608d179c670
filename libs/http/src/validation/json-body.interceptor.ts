import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, UseInterceptors } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { parseJsonObjectBody } from '../json/json-body.js';

/*
 * The body (text, or bytes that are not UTF-8: fastify-setup) is parsed here, after the guards (401
 * before 400) and before the other interceptors (400 invalid_json before idempotency and the DTO's 422).
 */

/** What configureFastify hands on: the text, the bytes that were not UTF-8, or nothing. */
export type ReceivedBody = string | Buffer | undefined;

/** A body that is there: text other than white space, or bytes (which were not UTF-8). */
export const hasBody = (raw: unknown): raw is string | Buffer => Buffer.isBuffer(raw) || (typeof raw === 'string' && raw.trim() !== '');

@Injectable()
export class RequiredJsonBody implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    request.body = parseJsonObjectBody(request.body as ReceivedBody);
    return next.handle();
  }
}

/** Routes without a meaningful body accept an empty one; a body that is present must be an object. */
@Injectable()
export class OptionalJsonBody implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const raw = request.body;
    request.body = hasBody(raw) ? parseJsonObjectBody(raw) : {};
    return next.handle();
  }
}

export const JsonBody = (options: { optional?: boolean } = {}) => UseInterceptors(options.optional ? OptionalJsonBody : RequiredJsonBody);
