import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { wholeNumberMessage, wholeNumberWithin } from '../query/limit.js';
import { nameListMessage, oneOfMessage, parseNameList, singleTextMessage } from '../query/params.js';
import { formatTime, parseIsoTime, timeMessage } from '../query/time.js';

/*
 * One decorator per kind of query parameter: it transforms, validates (class-validator, behind the
 * edge ValidationPipe, which answers 400 invalid_parameter) and documents (OpenAPI) the parameter,
 * so the three cannot disagree. The rules are the parse functions of ../query, shared with the
 * original endpoint; a parameter repeated in the query string arrives as a list and is refused.
 */

/** A whole number within bounds (`limit`): read as a number, the default when absent. */
export const WholeNumberParam = (options: { min: number; max: number; default: number; description: string }) =>
  applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: options.min, maximum: options.max, default: options.default, description: options.description }),
    Transform(({ value }: { value: unknown }) => wholeNumberWithin(value, options.min, options.max) ?? value),
    ValidateBy({
      name: 'wholeNumberWithin',
      validator: {
        validate: (value: unknown) => value === undefined || wholeNumberWithin(value, options.min, options.max) !== null,
        defaultMessage: (args) => wholeNumberMessage(args?.property ?? 'value', options.min, options.max),
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
        defaultMessage: (args) => timeMessage(args?.property ?? 'value'),
      },
    }),
  );

/** One of a closed set of values. */
export const OneOfParam = <T extends string>(allowed: readonly T[], description: string, fallback?: T) =>
  applyDecorators(
    ApiPropertyOptional({ type: 'string', enum: [...allowed], description, ...(fallback === undefined ? {} : { default: fallback }) }),
    ValidateBy({
      name: 'oneOf',
      validator: {
        validate: (value: unknown) => value === undefined || (typeof value === 'string' && (allowed as readonly string[]).includes(value)),
        defaultMessage: (args) => oneOfMessage(args?.property ?? 'value', allowed),
      },
    }),
  );

/** One name of a closed set or several separated by commas (`type=a,b`), read as the list of distinct names. */
export const NameListParam = <T extends string>(allowed: readonly T[], description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: 'string', description, example: allowed.slice(0, 2).join(','), pattern: `^\\s*(${allowed.join('|')})\\s*(,\\s*(${allowed.join('|')})\\s*)*$` }),
    // Read as the list of names; anything else stays text (a repeated parameter, which arrives as a list, too), which validation refuses.
    Transform(({ value }: { value: unknown }) => (value === undefined ? undefined : parseNameList(value, allowed) ?? String(value))),
    ValidateBy({
      name: 'nameList',
      validator: {
        validate: (value: unknown) => value === undefined || (Array.isArray(value) && value.length > 0),
        defaultMessage: (args) => nameListMessage(args?.property ?? 'value', allowed),
      },
    }),
  );

/** Free text given once (an id, an address, a cursor). */
export const TextParam = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: 'string', description }),
    ValidateBy({
      name: 'singleText',
      validator: {
        validate: (value: unknown) => value === undefined || typeof value === 'string',
        defaultMessage: (args) => singleTextMessage(args?.property ?? 'value'),
      },
    }),
  );

/**
 * Documented only: whether a cursor is valid depends on the list and filters it was issued for,
 * which the controller knows (`readCursorParam`, 400 invalid_cursor).
 */
export const CursorParam = () =>
  ApiPropertyOptional({ type: 'string', description: 'Omit for the first page; otherwise the previous `meta.nextCursor`, unchanged.' });
