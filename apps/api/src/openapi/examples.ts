/** Filled from real answers of the service (see scripts/capture-openapi-examples.mjs). */
export const EXAMPLES: Record<string, unknown> = {};
