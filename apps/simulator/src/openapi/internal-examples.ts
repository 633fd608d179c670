// Real answers of the internal application, captured as JSON by scripts/capture-internal-examples.mjs: data, not to be edited by hand.
import examples from './internal-examples.json' with { type: 'json' };

export const INTERNAL_EXAMPLES = examples;
