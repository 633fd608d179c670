import type { AssessmentDocument, CandidateAssessment, CandidateDocument, CandidateView, WorkspaceDocument } from '#read-models';
import type { StoredResult } from '#domain';
import { assessmentPath, statusBadge } from '../assessments/assessment-list.view.js';
import { localLink, PROGRESS_TONE } from '../assessments/assessment.view.js';
import { actionButton, badge, code, facts, jsonBlock, modeBadge, timeOf } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import type { PageContext } from '../shared/page-context.js';
import { workspacePath } from '../workspaces/workspace-frame.js';
import { scoresForm, testSize } from './scores-form.js';

export interface CandidatePageData {
  candidate: CandidateDocument;
  workspace: WorkspaceDocument | null;
  assessments: Map<string, AssessmentDocument>;
  /** What GET /v1/candidates/{id} answers (null: 404). */
  publicAnswer: { data: CandidateView } | null;
  focusAssessmentId: string;
}

export const candidatePath = (candidateId: string, assessmentId?: string): string =>
  `/candidates/${encodeURIComponent(candidateId)}${assessmentId ? `?assessment=${encodeURIComponent(assessmentId)}` : ''}`;

const resultLine = (context: PageContext, result: StoredResult): Html => html`<div class="row">
${result.unlockedAt ? badge('unlocked', 'ok') : badge('locked', 'warn')}
<span class="muted">finished ${timeOf(result.completedAt)}</span>
${result.unlockedAt
    ? html`<span><strong>${result.scores.scorePercentage}%</strong> · ${result.scores.questionsCorrect}/${result.scores.questionsTotal} correct · ${result.scores.speedCompleted}s</span>`
    : actionButton(context, `/results/${encodeURIComponent(result.id)}/unlock`, 'Unlock result', { style: 'primary', small: true })}
</div>`;

const assessmentCard = (context: PageContext, data: CandidatePageData, entry: CandidateAssessment): Html => {
  const assessment = data.assessments.get(entry.id);
  const tests = assessment?.tests ?? entry.tests;
  const closed = assessment?.status === 'archived';
  const base = `/candidates/${encodeURIComponent(data.candidate.id)}/assessments/${encodeURIComponent(entry.id)}`;
  const firstOpen = tests.find((test) => !entry.results.some((result) => result.testSlug === test.slug))?.slug;
  return html`<section class="card${entry.id === data.focusAssessmentId ? ' highlight' : ''}" aria-labelledby="assessment-${entry.id}">
<div class="card-head"><h2 id="assessment-${entry.id}"><a href="${assessmentPath(entry.id)}">${entry.name}</a></h2>
<div class="card-actions">${badge(entry.status.replace('_', ' '), PROGRESS_TONE[entry.status] ?? 'muted')}${assessment ? statusBadge(assessment.status) : ''}</div></div>
<p class="meta"><span>registered ${timeOf(entry.registeredAt)}</span><span>started ${timeOf(entry.startedAt)}</span><span>completed ${timeOf(entry.completedAt)}</span></p>
${closed ? html`<p class="note warn">The assessment is closed: starting and finishing tests are refused (<code>invalid_state</code>).</p>` : ''}
${entry.status === 'not_started' && !closed ? html`<p>${actionButton(context, `${base}/start`, 'Start the assessment', { style: 'primary' })}</p>` : ''}
${tests.map((test, index) => {
    const result = entry.results.find((item) => item.testSlug === test.slug);
    const size = testSize(test.slug, data.workspace);
    return html`<div class="test">
<div class="test-head"><h3>${index + 1}. ${test.name} <span class="muted mono">${test.slug}</span></h3>${result ? badge('finished', 'ok') : badge('to do', 'muted')}</div>
${result
    ? resultLine(context, result)
    : closed ? '' : html`<details${test.slug === firstOpen ? html` open` : ''}><summary>Finish this test</summary>${scoresForm(context, `${base}/tests/${encodeURIComponent(test.slug)}/complete`, test.slug, size)}</details>`}
</div>`;
  })}
</section>`;
};

export const candidatePage = (context: PageContext, data: CandidatePageData): PageShape => {
  const { candidate } = data;
  const name = `${candidate.firstName} ${candidate.surname}`.trim() || candidate.email;
  const trail = [{ label: 'Simulator', href: '/simulator' }];
  if (data.workspace) trail.push({ label: data.workspace.name, href: workspacePath(data.workspace.id) });
  return {
    title: name,
    section: 'simulator',
    trail,
    actions: html`${modeBadge(candidate.mode)} <a class="button small" href="/audit/streams/${encodeURIComponent(`candidate-${candidate.id}`)}">Timeline</a>
${candidate.mode === 'sandbox' ? actionButton(context, `/candidates/${encodeURIComponent(candidate.id)}/delete`, 'Delete test candidate', { style: 'danger', small: true, confirm: `Delete ${candidate.email}? They disappear from every read.` }) : ''}`,
    body: html`<div class="grid two even"><div>
<section class="card" aria-labelledby="candidate-facts"><div class="card-head"><h2 id="candidate-facts">Candidate</h2></div>
${facts([['Id', code(candidate.id)], ['E-mail', candidate.email], ['Registered', timeOf(candidate.createdAt)], ['Updated', timeOf(candidate.updatedAt)]])}
</section>
${candidate.assessments.length === 0 ? html`<p class="empty">Not registered on any assessment.</p>` : candidate.assessments.map((entry) => assessmentCard(context, data, entry))}
</div>
<section class="card sticky" aria-labelledby="public-answer"><div class="card-head"><h2 id="public-answer">What the public API returns now</h2></div>
<p class="hint"><code>GET /v1/candidates/${candidate.id}</code> with a ${candidate.mode} key of the workspace${data.publicAnswer ? html` · <a href="${localLink(data.publicAnswer.data.reportUrl)}">report</a>` : ''}</p>
${data.publicAnswer ? jsonBlock(data.publicAnswer, 'Public API answer') : jsonBlock({ error: { code: 'not_found', message: 'No such resource.' } }, 'Public API answer')}
</section></div>`,
  };
};
