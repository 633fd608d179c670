import { WEBHOOK_EVENT_NAMES, type WebhookEventName } from '#domain';
import { NameListParam, TimeParam } from '#http';
import { PageQuery } from '../shared/list-params.js';

export class ListEventsQuery extends PageQuery {
  @TimeParam('Only events that happened at or after this time (inclusive, on `createdAt`)')
  since?: string;

  @NameListParam(WEBHOOK_EVENT_NAMES, 'Only events of this name, or of any of several names separated by commas')
  type?: WebhookEventName[];
}
