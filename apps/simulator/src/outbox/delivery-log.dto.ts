import { CursorParam, WholeNumberParam } from '#http';

/** The most rows of the delivery log one answer holds: the whole first page, as before it paged. */
export const DELIVERY_PAGE_LIMIT = 1000;

/** `limit` and `cursor` of `GET /internal/workspaces/{id}/webhook-deliveries`, as the public lists take them. */
export class DeliveryLogQuery {
  @WholeNumberParam({ min: 1, max: DELIVERY_PAGE_LIMIT, default: DELIVERY_PAGE_LIMIT, description: 'Rows per page, newest first' })
  limit: number = DELIVERY_PAGE_LIMIT;

  @CursorParam()
  cursor?: string;
}
