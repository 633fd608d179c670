import { OneOfParam, TextParam, TimeParam } from '#http';
import { PageQuery } from '../shared/list-params.js';

export const ORDERS = ['asc', 'desc'] as const;
export type Order = (typeof ORDERS)[number];

export class ListResultsQuery extends PageQuery {
  @TimeParam('Only tests completed at or after this time (inclusive)')
  since?: string;

  @TimeParam('Only results unlocked at or after this time; sorted by unlock time; no cursor (`meta.nextCursor` is null), use `limit`')
  unlocked_since?: string;

  @OneOfParam(ORDERS, 'Sort order', 'asc')
  order: Order = 'asc';

  @TextParam('Only this assessment id; an unknown id is 404 not_found')
  assessment?: string;
}
