/*
 * The work one request body may ask for (docs/operations.md, "Limits on the work of one request").
 * Every body of both APIs is parsed by parseJsonObjectBody, which checks these limits before any
 * rule of a route (class-validator or a decider) sees the value: whatever a route then does per item,
 * it does it for a bounded number of items. No request of either API comes near them: the largest,
 * an invitation of 100 people, holds about 400 values and lists of 100 entries.
 */

export interface JsonLimits {
  /** Nesting of arrays and objects; the body itself is level 1. */
  readonly maxDepth: number;
  /** Values of every kind (objects, arrays, strings, numbers, booleans, null), the body included. */
  readonly maxValues: number;
  /** Entries of one array, or members of one object. */
  readonly maxEntries: number;
  /** Characters of one string, property names included. */
  readonly maxStringLength: number;
}

export const JSON_LIMITS: JsonLimits = { maxDepth: 64, maxValues: 10_000, maxEntries: 1_000, maxStringLength: 10_000 };

type PathSegment = string | number;

const NAME_SHOWN = 40;

/** `candidates[3].email`; long property names are cut, so the message stays short whatever the body. */
const describe = (path: readonly PathSegment[]): string => {
  if (path.length === 0) return 'the body';
  return path.map((segment, index) => {
    if (typeof segment === 'number') return `[${segment}]`;
    const name = segment.length > NAME_SHOWN ? `${segment.slice(0, NAME_SHOWN)}…` : segment;
    return index === 0 ? name : `.${name}`;
  }).join('');
};

/**
 * How a parsed JSON value goes beyond the limits, as a message naming where, or null when it stays
 * within them. One pass that stops at the first excess: its time is bounded by the limits, not by the
 * size of the value, and its recursion by maxDepth.
 */
export const jsonExcess = (value: unknown, limits: JsonLimits = JSON_LIMITS): string | null => {
  let values = 0;
  const path: PathSegment[] = [];

  const visit = (node: unknown, depth: number): string | null => {
    values += 1;
    if (values > limits.maxValues) return `the body holds more than ${limits.maxValues} values`;
    if (typeof node === 'string') {
      return node.length > limits.maxStringLength ? `${describe(path)} is longer than ${limits.maxStringLength} characters` : null;
    }
    if (node === null || typeof node !== 'object') return null;
    if (depth > limits.maxDepth) return `${describe(path)} is nested deeper than ${limits.maxDepth} levels`;
    if (Array.isArray(node)) {
      if (node.length > limits.maxEntries) return `${describe(path)} has more than ${limits.maxEntries} entries`;
      for (let index = 0; index < node.length; index += 1) {
        path.push(index);
        const excess = visit(node[index], depth + 1);
        path.pop();
        if (excess !== null) return excess;
      }
      return null;
    }
    let members = 0;
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      members += 1;
      if (members > limits.maxEntries) return `${describe(path)} has more than ${limits.maxEntries} entries`;
      if (key.length > limits.maxStringLength) return `a property name in ${describe(path)} is longer than ${limits.maxStringLength} characters`;
      path.push(key);
      const excess = visit((node as Record<string, unknown>)[key], depth + 1);
      path.pop();
      if (excess !== null) return excess;
    }
    return null;
  };

  return visit(value, 1);
};
