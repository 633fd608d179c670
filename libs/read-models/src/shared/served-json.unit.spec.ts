import type { DomainEvent } from '#domain';
import { servedCandidateJson, toCandidateView } from '../candidates/candidate.view.js';
import { candidatesProjection, type CandidateDocument } from '../candidates/candidates.projection.js';
import { servedResultJson, toResultListView } from '../results/result-list.view.js';
import { resultsProjection, type ResultDocument } from '../results/results.projection.js';
import {
  assessment, assessmentCompleted, at, candidate, candidateCreated, registered, started, testCompleted, unlocked,
} from '../test-support/domain-fixtures.js';
import { project } from '../test-support/recorded.js';
import { APP_URL_MARK, fillAppUrl, servedItem, servedList } from './served-json.js';

const a1 = assessment('w1', 'a1');
const [numerical, verbal] = a1.tests;
if (numerical === undefined || verbal === undefined) throw new Error('fixture needs two tests');
// Quotes, backslashes, a control character and a would-be marker in the data: all must stay data.
const c1 = { ...candidate('w1', 'c1', 'live'), firstName: 'Zoë "Z" \\ \u0001 \u2028', surname: '"reportUrl":"\u0001' };
const finished = testCompleted(c1, a1, 'r1', numerical, at(2), 91);
const histories: DomainEvent[][] = [
  [],
  [...registered(c1, a1, at(1))],
  [...registered(c1, a1, at(1)), started(c1, a1, at(2)), finished, testCompleted(c1, a1, 'r2', verbal, at(3), 55), assessmentCompleted(c1, a1, at(3))],
  [...registered(c1, a1, at(1)), finished, unlocked(c1, a1, 'r1', at(5))],
];
const APP_URLS = ['http://app', 'https://hiring.example.com/base path/"quoted"', 'http://x/$&$1'];

describe('served JSON (stored beside each document, sent as is)', () => {
  it('is byte for byte the view the API would stringify, for candidates', () => {
    for (const history of histories) {
      const doc = project<CandidateDocument>(candidatesProjection, [candidateCreated(c1, at(0)), ...history], 'c1');
      if (doc === null) throw new Error('candidate expected');
      const stored = servedCandidateJson(doc);
      for (const appUrl of APP_URLS) expect(fillAppUrl(stored, appUrl)).toBe(JSON.stringify(toCandidateView(doc, appUrl)));
    }
  });

  it('is byte for byte the view the API would stringify, for results, locked or not', () => {
    for (const history of [[finished], [finished, unlocked(c1, a1, 'r1', at(5))]]) {
      const doc = project<ResultDocument>(resultsProjection, history, 'r1');
      if (doc === null) throw new Error('result expected');
      const stored = servedResultJson(doc);
      for (const appUrl of APP_URLS) expect(fillAppUrl(stored, appUrl)).toBe(JSON.stringify(toResultListView(doc, appUrl)));
    }
  });

  it('holds the APP_URL marker only where APP_URL goes', () => {
    const doc = project<ResultDocument>(resultsProjection, [finished], 'r1');
    if (doc === null) throw new Error('result expected');
    expect(servedResultJson(doc).split(APP_URL_MARK)).toHaveLength(2);
  });

  it('assembles list and item bodies that parse to the documented shape', () => {
    const body = servedList(['{"id":"a"}', `{"link":"${APP_URL_MARK}/x"}`], { nextCursor: null }, 'http://app');
    expect(JSON.parse(body)).toEqual({ data: [{ id: 'a' }, { link: 'http://app/x' }], meta: { nextCursor: null } });
    expect(JSON.parse(servedList([], null, 'http://app'))).toEqual({ data: [] });
    expect(JSON.parse(servedItem('{"id":"a"}', 'http://app'))).toEqual({ data: { id: 'a' } });
  });
});
