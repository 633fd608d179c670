import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationArguments } from 'class-validator';
import { MAX_CURSOR_LENGTH } from '../cursors/cursor-param.js';
import { wholeNumberWithin } from '../query/limit.js';
import { formatTime, parseIsoTime, timeMessage } from '../query/time.js';

/*
 * One decorator per kind of query parameter: it transforms, validates (400 invalid_parameter, through
 * EdgeValidationPipe) and documents the parameter, so the three cannot disagree. A parameter repeated
 * in the query string arrives as a list and is refused.
 */

/** A name list given more than once (it arrives as a list): kept apart from a list of names, and refused. */
class Repeated {}

/** The parameter's message, or, when it was given more than once (it arrives as a list), that. */
const messageFor = (message: (name: string) => string) => (args?: ValidationArguments): string => {
  const name = args?.property ?? 'value';
  return Array.isArray(args?.value) || args?.value instanceof Repeated ? `${name} is given more than once; give it once.` : message(name);
};

/**
 * A whole number within bounds (`limit`), the default when absent. `maximumDocumented: false` leaves
 * out of the document a bound that only keeps the arithmetic exact (a larger value is read as it).
 */
export const WholeNumberParam = (options: { min: number; max: number; default: number; description: string; maximumDocumented?: boolean }) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer', minimum: options.min, ...(options.maximumDocumented === false ? {} : { maximum: options.max }), default: options.default, description: options.description,
    }),
    Transform(({ value }: { value: unknown }) => wholeNumberWithin(value, options.min, options.max) ?? value),
    ValidateBy({
      name: 'wholeNumberWithin',
      validator: {
        validate: (value: unknown) => value === undefined || wholeNumberWithin(value, options.min, options.max) !== null,
        defaultMessage: messageFor((name) => `${name} must be a whole number from ${options.min} to ${options.max}.`),
      },
    }),
  );

/** A date or date-time of the contract, normalised to the form the API writes (`…T…sssZ`). */
export const TimeParam = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'string', description,
      example: '2026-10-01T09:00:00.000Z',
      pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2}))?$',
    }),
    Transform(({ value }: { value: unknown }) => {
      const parsed = typeof value === 'string' ? parseIsoTime(value) : null;
      return parsed ? formatTime(parsed) : value;
    }),
    ValidateBy({
      name: 'contractTime',
      validator: {
        validate: (value: unknown) => value === undefined || (typeof value === 'string' && parseIsoTime(value) !== null),
        defaultMessage: messageFor(timeMessage),
      },
    }),
  );

/**
 * One of a set of values; anything else is 400 invalid_parameter. `open: true` documents the set as
 * today's values rather than an `enum`, for a set the contract does not close (values may be added).
 */
export const OneOfParam = <T extends string>(allowed: readonly T[], description: string, fallback?: T, options: { open?: boolean } = {}) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      ...(options.open
        ? { description: `${description}. Values today: ${allowed.map((value) => `\`${value}\``).join(', ')} (another value is 400 invalid_parameter); more may be added.`, example: allowed[0] }
        : { enum: [...allowed], description }),
      ...(fallback === undefined ? {} : { default: fallback }),
    }),
    ValidateBy({
      name: 'oneOf',
      validator: {
        validate: (value: unknown) => value === undefined || (typeof value === 'string' && (allowed as readonly string[]).includes(value)),
        defaultMessage: messageFor((name) => `${name} must be one of: ${allowed.join(', ')}.`),
      },
    }),
  );

/** The distinct names in the order given, or null for anything else (an empty item, an unknown name). */
const parseNameList = <T extends string>(value: unknown, allowed: readonly T[]): T[] | null => {
  if (typeof value !== 'string') return null;
  const names: T[] = [];
  for (const item of value.split(',')) {
    const match = allowed.find((candidate) => candidate === item.trim());
    if (match === undefined) return null;
    if (!names.includes(match)) names.push(match);
  }
  return names;
};

/** One name of a closed set or several separated by commas (`type=a,b`), read as the list of distinct names. */
export const NameListParam = <T extends string>(allowed: readonly T[], description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: 'string', description, example: allowed.slice(0, 2).join(','), pattern: `^\\s*(${allowed.join('|')})\\s*(,\\s*(${allowed.join('|')})\\s*)*$` }),
    // Anything but a list of names stays text, which validation refuses.
    Transform(({ value }: { value: unknown }) => (value === undefined ? undefined : Array.isArray(value) ? new Repeated() : parseNameList(value, allowed) ?? String(value))),
    ValidateBy({
      name: 'nameList',
      validator: {
        validate: (value: unknown) => value === undefined || (Array.isArray(value) && value.length > 0),
        defaultMessage: messageFor((name) =>
          `${name} must be one of: ${allowed.join(', ')}; or several of them separated by commas.`),
      },
    }),
  );

/**
 * Free text given once (an id, an address), of at most `maxLength` characters. Longer is 400
 * invalid_parameter, or with `longer: 'unknown id'` left to the route, which answers 404 not_found.
 */
export const TextParam = (description: string, options: { maxLength: number; example?: string; longer?: 'invalid' | 'unknown id' }) => {
  const refused = options.longer !== 'unknown id';
  const bound = refused ? `longer: 400 invalid_parameter` : 'a longer one is an unknown id';
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string', description: `${description}. At most ${options.maxLength} characters (${bound})`, maxLength: options.maxLength,
      ...(options.example === undefined ? {} : { example: options.example }),
    }),
    ValidateBy({
      name: 'singleText',
      validator: {
        validate: (value: unknown) => value === undefined || (typeof value === 'string' && (!refused || value.length <= options.maxLength)),
        defaultMessage: messageFor((name) => `${name} must be given once, as text of at most ${options.maxLength} characters.`),
      },
    }),
  );
};

const CURSOR_DESCRIPTION = 'Omit for the first page; otherwise the previous `meta.nextCursor`, unchanged.';

/** Documented only: the controller checks the cursor against its list and filters (`readCursorParam`). */
export const CursorParam = (note?: string) =>
  ApiPropertyOptional({ type: 'string', maxLength: MAX_CURSOR_LENGTH, description: note ? `${CURSOR_DESCRIPTION} ${note}` : CURSOR_DESCRIPTION });
