import { Transform } from 'class-transformer';
import { ValidateBy, ValidateIf } from 'class-validator';
import { isStorableText, isWholeNumber } from '#domain';

/**
 * A class-validator rule from a predicate, answering the message the internal application has always
 * answered for it (a message may depend on the value, as the webhook address's do).
 */
export const Rule = (name: string, isValid: (value: unknown) => boolean, message: string | ((value: unknown) => string)) =>
  ValidateBy({
    name,
    validator: {
      validate: (value: unknown) => isValid(value),
      defaultMessage: (args) => (typeof message === 'string' ? message : message(args?.value)),
    },
  });

/** A whole number within bounds (`isWholeNumber`); the message names the bounds the way each route always has. */
export const WholeNumber = (min: number, max: number, message: string) => Rule('wholeNumber', (value) => isWholeNumber(value, min, max), message);

/** A name of 1 to `max` characters once trimmed, that a store can hold; the trimmed text is what the command gets. */
export const TrimmedName = (max: number) => {
  const message = `name must be a string of 1 to ${max} characters`;
  const trim = Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));
  const rule = Rule('trimmedName', (value) => typeof value === 'string' && value.length >= 1 && value.length <= max && isStorableText(value), message);
  return (target: object, property: string) => {
    rule(target, property);
    trim(target, property);
  };
};

/** Checked only when the body holds the property at all (`null` included), unlike IsOptional. */
export const WhenPresent = () => ValidateIf((_body: object, value: unknown) => value !== undefined);

/** The raw JSON value, untouched by class-transformer (which would rebuild nested objects key by key). */
export const AsSent = () => Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => obj[key]);
