import type { FastifyRequest } from 'fastify';
import { CATALOGUE } from '#domain';
import type { WorkspaceDocument } from '#read-models';
import { csrfField } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageContext } from '../shared/page-context.js';
import { numberField } from '../shared/page-data.js';
import { field } from '../shared/page-http.js';

export interface TestSize {
  minutes: number;
  questions: number;
}

const librarySizes = new Map(CATALOGUE.map((test) => [test.slug, { minutes: test.minutes, questions: test.questionCount }]));

export const testSize = (slug: string, workspace: WorkspaceDocument | null): TestSize => {
  const custom = workspace?.customTests.find((test) => test.slug === slug);
  return custom ? { minutes: custom.minutes, questions: custom.questionCount } : librarySizes.get(slug) ?? { minutes: 20, questions: 20 };
};

/** A solid, unremarkable result: three answers in four right, in seven tenths of the time. */
const defaults = (size: TestSize) => {
  const correct = Math.round(size.questions * 0.75);
  return {
    scorePercentage: Math.round((correct / size.questions) * 1000) / 10,
    speedCompleted: Math.round(size.minutes * 60 * 0.7),
    questionsTotal: size.questions,
    questionsAnswered: size.questions,
    questionsCorrect: correct,
    questionsIncorrect: size.questions - correct,
  };
};

const NUMBER_FIELDS: { name: keyof ReturnType<typeof defaults>; label: string; step: string }[] = [
  { name: 'scorePercentage', label: 'Score %', step: '0.1' },
  { name: 'speedCompleted', label: 'Seconds taken', step: '1' },
  { name: 'questionsTotal', label: 'Questions', step: '1' },
  { name: 'questionsAnswered', label: 'Answered', step: '1' },
  { name: 'questionsCorrect', label: 'Correct', step: '1' },
  { name: 'questionsIncorrect', label: 'Incorrect', step: '1' },
];

export const scoresForm = (context: PageContext, action: string, slug: string, size: TestSize): Html => {
  const values = defaults(size);
  const id = (name: string) => `${slug}-${name}`;
  return html`<form method="post" action="${action}" class="stack" data-questions="${size.questions}" data-minutes="${size.minutes}">
${csrfField(context)}
<div class="form-grid">${NUMBER_FIELDS.map((item) => html`<div class="field"><label for="${id(item.name)}">${item.label}</label><input id="${id(item.name)}" name="${item.name}" type="number" min="0" step="${item.step}" value="${values[item.name]}" required></div>`)}</div>
<div class="form-grid">
<div class="field"><label for="${id('result')}">Result label <span class="muted">(optional)</span></label><input id="${id('result')}" name="result" type="text" maxlength="1000" placeholder="e.g. ENTJ"></div>
<div class="field"><label for="${id('scores')}">Detailed scores, JSON <span class="muted">(optional)</span></label><textarea id="${id('scores')}" name="scores" rows="2" placeholder='{"openness": 71}'></textarea></div>
</div>
<div class="row"><button type="submit" class="button primary">Finish test</button><button type="button" class="button" data-random-scores>Random realistic scores</button></div>
</form>`;
};

/** The form as the JSON body of …/tests/{slug}/complete; what is not a number goes as typed and CompleteTestBody refuses it. */
export const scoresBody = (request: FastifyRequest): Record<string, unknown> => {
  const body: Record<string, unknown> = {};
  for (const item of NUMBER_FIELDS) body[item.name] = numberField(field(request, item.name));
  const result = field(request, 'result');
  if (result.trim() !== '') body.result = result;
  const scores = field(request, 'scores');
  if (scores.trim() !== '') {
    try {
      body.scores = JSON.parse(scores) as unknown;
    } catch {
      body.scores = scores;
    }
  }
  return body;
};
