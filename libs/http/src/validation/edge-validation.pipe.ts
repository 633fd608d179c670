import { type ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { type ValidationError, type ValidatorOptions, validateSync } from 'class-validator';
import { apiError } from '../errors/api-error.js';
import { type ErrorCode, isErrorCode } from '../errors/error-codes.js';

/** Carries class-validator's findings from the exception factory to `transform`, which knows the source. */
class Refusal {
  constructor(readonly errors: ValidationError[]) {}
}

const codeOf = (error: ValidationError, constraint: string): string | undefined => {
  const context = error.contexts?.[constraint] as { code?: unknown } | undefined;
  return typeof context?.code === 'string' ? context.code : undefined;
};

/**
 * The first property that breaks a rule. Within it, a rule without a code of its own wins: a
 * `candidates` that is not a list breaks "1 to 100" too, but it is validation_failed, not too_many.
 */
const firstFinding = (errors: ValidationError[]): { message: string; code: string | undefined } | null => {
  for (const error of errors) {
    const broken = Object.entries(error.constraints ?? {});
    const [constraint, message] = broken.find(([name]) => codeOf(error, name) === undefined) ?? broken[0] ?? [];
    if (constraint !== undefined && message !== undefined) return { message, code: codeOf(error, constraint) };
    const nested = firstFinding(error.children ?? []);
    if (nested) return nested;
  }
  return null;
};

/**
 * The ValidationPipe of every request DTO: a query parameter that breaks its rule is 400
 * invalid_parameter, a body (a JSON object by then) 422 validation_failed unless the rule's context
 * names its own code (`too_many_candidates`), with the message of the first property found wrong.
 */
@Injectable()
export class EdgeValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      // Unknown query parameters are ignored (product decisions); unknown body fields too.
      whitelist: false,
      forbidUnknownValues: false,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new Refusal(errors),
    });
  }

  /** No rule of ours is asynchronous: the synchronous run saves about half of the validation's CPU. */
  protected override validate(object: object, validatorOptions?: ValidatorOptions): ValidationError[] {
    return validateSync(object, validatorOptions);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const finding = firstFinding(error.errors);
      if (metadata.type === 'query') throw apiError('invalid_parameter', finding?.message);
      const code: ErrorCode = finding?.code !== undefined && isErrorCode(finding.code) ? finding.code : 'validation_failed';
      throw apiError(code, finding?.message);
    }
  }
}
