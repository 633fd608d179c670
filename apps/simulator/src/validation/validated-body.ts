import type { Type } from '@nestjs/common';
import { EdgeValidationPipe } from '#http';

// Stateless: one instance serves every call.
const edge = new EdgeValidationPipe();

/**
 * A body (a JSON object, or a page's form as the JSON route would receive it) checked against its
 * DTO by the same pipe as the routes' `@Body()`: 422 validation_failed with the first rule broken.
 */
export const validatedBody = async <T extends object>(metatype: Type<T>, value: object): Promise<T> =>
  (await edge.transform(value, { type: 'body', metatype })) as T;
