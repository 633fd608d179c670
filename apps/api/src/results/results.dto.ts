import { CursorParam, MAX_ID_LENGTH, OneOfParam, TextParam, TimeParam } from '#http';
import { PageQuery } from '../shared/list-params.js';

export const ORDERS = ['asc', 'desc'] as const;
export type Order = (typeof ORDERS)[number];

export class ListResultsQuery extends PageQuery {
  @TimeParam('Only tests completed at or after this time (inclusive)')
  since?: string;

  // The order by unlock time has no cursor (API document 4.3): like any parameter a list does not read, it is ignored.
  @CursorParam('Ignored, whatever its value, when `unlocked_since` is given: that order has no cursor.')
  override cursor?: string = undefined;

  @TimeParam('Only results unlocked at or after this time; sorted by unlock time; no cursor (`meta.nextCursor` is null, and a `cursor` sent is ignored), use `limit`')
  unlocked_since?: string;

  @OneOfParam(ORDERS, 'Sort order', 'asc')
  order: Order = 'asc';

  @TextParam('Only this assessment id; an unknown id is 404 not_found', { maxLength: MAX_ID_LENGTH, longer: 'unknown id' })
  assessment?: string;
}
