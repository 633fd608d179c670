import { MAX_ID_LENGTH, OneOfParam, TextParam, TimeParam, WholeNumberParam } from '#http';
import { ORDERS, type Order } from '../results/results.dto.js';

/** No cursor: integrators poll with `since` and `order=asc`, keeping the last `completedAt`. */
export class ListCompletionsQuery {
  @WholeNumberParam({ min: 1, max: 100, default: 50, description: 'Maximum rows' })
  limit: number = 50;

  @TimeParam('Only assessments finished at or after this time (inclusive)')
  since?: string;

  @OneOfParam(ORDERS, 'Sort order by completedAt', 'desc')
  order: Order = 'desc';

  @TextParam('Only this assessment id; an unknown id is 404 not_found', { maxLength: MAX_ID_LENGTH, longer: 'unknown id' })
  assessment?: string;
}
