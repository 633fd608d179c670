import { MAX_EMAIL_LENGTH } from '#domain';
import { MAX_ID_LENGTH, TextParam, TimeParam } from '#http';
import { PageQuery } from '../shared/list-params.js';

export class ListCandidatesQuery extends PageQuery {
  @TextParam('Only candidates on this assessment id; an unknown id is 404 not_found', { maxLength: MAX_ID_LENGTH, longer: 'unknown id' })
  assessment?: string;

  @TextParam('Only the candidate with this address, case-insensitive (no address is longer than 254 characters)', { maxLength: MAX_EMAIL_LENGTH, example: 'ann.lee@example.com' })
  email?: string;

  @TimeParam('Only candidates whose record changed (registration, start, a finished test, an unlock) at or after this time, inclusive')
  updated_since?: string;
}
