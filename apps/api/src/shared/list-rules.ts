import { ValidateBy } from 'class-validator';

export interface TextListRule {
  min: number;
  max: number;
  /** When the value is not a list of min to max strings. */
  message: string;
  /** When a string is repeated. */
  repeatMessage: string;
}

/**
 * What is wrong with a list of distinct strings, or null: the size first, then one pass with a Set
 * (class-validator's ArrayUnique compares every pair: seconds for 100 000 items).
 */
export const textListProblem = (value: unknown, rule: TextListRule): string | null => {
  if (!Array.isArray(value) || value.length < rule.min || value.length > rule.max) return rule.message;
  const seen = new Set<string>();
  let repeated = false;
  for (const item of value as unknown[]) {
    if (typeof item !== 'string') return rule.message;
    if (seen.has(item)) repeated = true;
    seen.add(item);
  }
  return repeated ? rule.repeatMessage : null;
};

/** The class-validator rule of a list of min to max distinct strings (`tests`), in linear time. */
export const DistinctTextList = (rule: TextListRule) =>
  ValidateBy({
    name: 'distinctTextList',
    validator: {
      validate: (value: unknown) => textListProblem(value, rule) === null,
      defaultMessage: (args) => textListProblem(args?.value, rule) ?? rule.message,
    },
  });
