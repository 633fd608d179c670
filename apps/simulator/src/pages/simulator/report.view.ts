import type { CandidateView } from '#read-models';
import { badge, table, timeOf } from '../shared/components.js';
import { html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import { candidatePath } from './candidate.view.js';

/** Where `reportUrl` leads: the candidate's results as a recruiter reads them, locked ones hidden. */
export const reportPage = (view: CandidateView, mode: string): PageShape => ({
  title: `Report: ${`${view.firstName} ${view.surname}`.trim() || view.email}`,
  section: 'simulator',
  trail: [{ label: 'Simulator', href: '/simulator' }, { label: view.email, href: candidatePath(view.id) }],
  lead: `${view.email} · ${mode} candidate · updated ${view.updatedAt}`,
  body: view.assessments.map((assessment) => html`<section class="card" aria-labelledby="report-${assessment.id}">
<div class="card-head"><h2 id="report-${assessment.id}">${assessment.name}</h2>${badge(assessment.status.replace('_', ' '), assessment.status === 'completed' ? 'ok' : 'info')}</div>
${table(`Results of ${assessment.name}`, ['Test', 'Finished', 'Score', 'Correct', 'Seconds'], assessment.results.map((result) => [
    result.testName,
    timeOf(result.completedAt),
    result.unlocked ? html`<strong>${result.scorePercentage}%</strong>` : badge('locked', 'warn'),
    result.unlocked ? `${result.questionsCorrect} / ${result.questionsTotal}` : '—',
    result.unlocked ? result.speedCompleted : '—',
  ]), { empty: 'No test finished yet.', captionHidden: true })}
</section>`),
});
