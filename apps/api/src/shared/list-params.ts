import { CursorParam, WholeNumberParam } from '#http';

/** `limit` and `cursor` of every list with a cursor (API document 4.2). */
export class PageQuery {
  @WholeNumberParam({ min: 1, max: 100, default: 50, description: 'Rows per page' })
  limit: number = 50;

  @CursorParam()
  cursor?: string;
}
