// Real answers of the service, captured as JSON by scripts/capture-openapi-examples.mjs: data, not to be edited by hand.
import examples from './examples.json' with { type: 'json' };

export const EXAMPLES: Record<string, unknown> = examples;
