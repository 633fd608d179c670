import { TextParam, TimeParam } from '#http';
import { PageQuery } from '../shared/list-params.js';

export class ListCandidatesQuery extends PageQuery {
  @TextParam('Only candidates on this assessment id; an unknown id is 404 not_found')
  assessment?: string;

  @TextParam('Only the candidate with this address, case-insensitive')
  email?: string;

  @TimeParam('Only candidates whose record changed (registration, start, a finished test, an unlock) at or after this time, inclusive')
  updated_since?: string;
}
