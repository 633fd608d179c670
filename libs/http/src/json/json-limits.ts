/*
 * The work one request body may ask for (docs/operations.md, "Limits on the work of one request"),
 * checked on the text of every body of both APIs before JSON.parse and before any rule of a route, so
 * a route's work per item is bounded. One at the limits parses in a few milliseconds (10,000
 * invitation entries: ~6 ms on 2 cores); the largest real request (100 invitations) holds about 400
 * values, so the contract's own refusals (`too_many_candidates`) hold for any plausible list.
 */

export interface JsonLimits {
  /** Nesting of arrays and objects; the body itself is level 1. */
  readonly maxDepth: number;
  /** Values of every kind (objects, arrays, strings, numbers, booleans, null), the body included. */
  readonly maxValues: number;
  /** Entries of one array, or members of one object. */
  readonly maxEntries: number;
  /** Characters of one string as sent (an escape counts its characters), property names included. */
  readonly maxStringLength: number;
}

export const JSON_LIMITS: JsonLimits = { maxDepth: 64, maxValues: 50_000, maxEntries: 10_000, maxStringLength: 10_000 };

/** Too deep is not JSON this API reads at all (400 invalid_json); the rest is too much work (422). */
export type JsonTextExcess = { tooDeep: true; message: string } | { tooDeep: false; message: string };

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const NAME_SHOWN = 40;

interface Container {
  readonly isObject: boolean;
  entries: number;
  /** In an object: the next string is a member's name. */
  expectName: boolean;
  /** In an object: the current member's name, cut to NAME_SHOWN, for messages. */
  name: string;
}

const isWhiteSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** `candidates[3].email` for the place inside the first `depth` containers. */
const describe = (stack: readonly Container[], depth: number): string => {
  if (depth === 0) return 'the body';
  let path = '';
  for (let index = 0; index < depth; index += 1) {
    const container = stack[index] as Container;
    path += container.isObject ? `${index === 0 ? '' : '.'}${container.name}` : `[${container.entries - 1}]`;
  }
  return path;
};

/**
 * How a JSON text goes beyond the limits, with a message naming where, or null. One pass that stops at
 * the first excess; what is inside strings does not count. Text that is not JSON is JSON.parse's to
 * refuse, unless it is already beyond a limit.
 */
export const jsonTextExcess = (text: string, limits: JsonLimits = JSON_LIMITS): JsonTextExcess | null => {
  const stack: Container[] = [];
  let values = 1;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (isWhiteSpace(code)) continue;
    const top = stack[stack.length - 1];
    if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      // Unbalanced closers are JSON.parse's to report; they must not hide later openers.
      stack.pop();
      continue;
    }
    if (top && (top.entries === 0 || code === COMMA)) {
      // The first token of a container, or a comma: one more entry, and one more value in it.
      top.entries += 1;
      values += 1;
      if (top.entries > limits.maxEntries) return { tooDeep: false, message: `${describe(stack, stack.length - 1)} has more than ${limits.maxEntries} entries` };
      if (values > limits.maxValues) return { tooDeep: false, message: `the body holds more than ${limits.maxValues} values` };
      if (code === COMMA) {
        top.expectName = top.isObject;
        continue;
      }
    }
    if (code === COLON) {
      if (top) top.expectName = false;
    } else if (code === QUOTE) {
      const end = closingQuote(text, index);
      // Unterminated: JSON.parse reports it.
      if (end === -1) return null;
      const length = end - index - 1;
      if (top?.expectName) {
        if (length > limits.maxStringLength) return { tooDeep: false, message: `a property name in ${describe(stack, stack.length - 1)} is longer than ${limits.maxStringLength} characters` };
        top.name = length > NAME_SHOWN ? `${text.slice(index + 1, index + 1 + NAME_SHOWN)}…` : text.slice(index + 1, end);
      } else if (length > limits.maxStringLength) {
        return { tooDeep: false, message: `${describe(stack, stack.length)} is longer than ${limits.maxStringLength} characters` };
      }
      index = end;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (stack.length >= limits.maxDepth) return { tooDeep: true, message: `${describe(stack, stack.length)} is nested deeper than ${limits.maxDepth} levels` };
      const isObject = code === OPEN_BRACE;
      stack.push({ isObject, entries: 0, expectName: isObject, name: '' });
    }
  }
  return null;
};

/**
 * The quote that ends the string opened at `open` (the next one after an even run of backslashes), or
 * -1. Found with indexOf, as strings are most of a body.
 */
const closingQuote = (text: string, open: number): number => {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    for (let before = at - 1; before > open && text.charCodeAt(before) === BACKSLASH; before -= 1) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
};
