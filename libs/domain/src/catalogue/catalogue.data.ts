import catalogue from './catalogue.json' with { type: 'json' };
import type { CatalogueTest } from './catalogue.types.js';

/**
 * The library catalogue shipped with the service, the same for every workspace: product content kept as
 * data in catalogue.json. JSON widens `type` and `format` to strings; catalogue.unit.spec.ts holds every
 * entry to the unions of catalogue.types.ts, which is what makes this cast true.
 */
export const CATALOGUE = catalogue as readonly CatalogueTest[];
