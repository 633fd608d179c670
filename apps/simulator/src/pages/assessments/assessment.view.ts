import { invitationUrl } from '#domain';
import type { AssessmentDocument, CandidateDocument, PendingInvitationDocument, WorkspaceDocument } from '#read-models';
import { actionButton, badge, code, copyable, csrfField, facts, modeBadge, table, timeOf, type Tone } from '../shared/components.js';
import { html, type Html, type Renderable } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import type { PageContext } from '../shared/page-context.js';
import { workspacePath } from '../workspaces/workspace-frame.js';
import { statusBadge } from './assessment-list.view.js';

export interface AssessmentPageData {
  workspace: WorkspaceDocument;
  assessment: AssessmentDocument;
  inviteUrl: string;
  invitations: PendingInvitationDocument[];
  candidates: CandidateDocument[];
  appUrl: string;
}

export const PROGRESS_TONE: Record<string, Tone> = { not_started: 'muted', in_progress: 'info', completed: 'ok' };

/** The simulator page for a link the service hands out: the same path on this application. */
export const localLink = (url: string): string => {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
};

const candidateRow = (assessment: AssessmentDocument, candidate: CandidateDocument): Renderable[] => {
  const entry = candidate.assessments.find((item) => item.id === assessment.id);
  const name = `${candidate.firstName} ${candidate.surname}`.trim();
  return [
    html`<a href="/candidates/${encodeURIComponent(candidate.id)}?assessment=${encodeURIComponent(assessment.id)}"><strong>${name || candidate.email}</strong></a>${name ? html`<br><span class="muted">${candidate.email}</span>` : ''}`,
    modeBadge(candidate.mode === 'live' ? 'live' : 'sandbox'),
    entry ? badge(entry.status.replace('_', ' '), PROGRESS_TONE[entry.status] ?? 'muted') : '',
    entry ? `${entry.results.length} / ${assessment.tests.length}` : '',
    entry ? `${entry.results.filter((result) => result.unlockedAt !== null).length}` : '',
    timeOf(entry?.registeredAt),
  ];
};

const actionsCard = (context: PageContext, data: AssessmentPageData): Html => {
  const { assessment, workspace } = data;
  const present = new Set(assessment.tests.map((test) => test.slug));
  const addable = workspace.customTests.filter((test) => !present.has(test.slug));
  return html`<section class="card" aria-labelledby="assessment-actions"><div class="card-head"><h2 id="assessment-actions">Change it</h2></div>
<form method="post" action="/assessments/${encodeURIComponent(assessment.id)}/tests" class="form-row">
${csrfField(context)}
<div class="field"><label for="custom-slug">Append a custom test</label>
<select id="custom-slug" name="slug" required${addable.length === 0 ? html` disabled` : ''}>${addable.length === 0
    ? html`<option value="">No custom test left to add</option>`
    : addable.map((test) => html`<option value="${test.slug}">${test.name} (${test.slug})</option>`)}</select></div>
<button type="submit" class="button"${addable.length === 0 ? html` disabled` : ''}>Append</button>
</form>
<p class="hint">Custom tests are created on the <a href="${workspacePath(workspace.id)}#custom-tests">workspace page</a>.</p>
${assessment.status === 'active' ? html`<hr class="rule"><p class="hint">Closing archives it: nobody can register, start or finish a test any more.</p>
${actionButton(context, `/assessments/${encodeURIComponent(assessment.id)}/close`, 'Close assessment', { style: 'danger', confirm: `Close “${assessment.name}”? This cannot be undone.` })}` : ''}
</section>`;
};

export const assessmentPage = (context: PageContext, data: AssessmentPageData): PageShape => {
  const { assessment, workspace } = data;
  return {
    title: assessment.name,
    section: 'workspaces',
    trail: [{ label: 'Workspaces', href: '/' }, { label: workspace.name, href: workspacePath(workspace.id) }, { label: 'Assessments', href: workspacePath(workspace.id, 'assessments') }],
    actions: html`${statusBadge(assessment.status)} <code class="muted">${assessment.id}</code> <a class="button small" href="/audit/streams/${encodeURIComponent(`assessment-${assessment.id}`)}">Timeline</a>`,
    body: html`<div class="grid two"><div>
<section class="card" aria-labelledby="assessment-facts"><div class="card-head"><h2 id="assessment-facts">Assessment</h2></div>
${facts([['Created', timeOf(assessment.createdAt)], ['Deadline', assessment.deadline ?? 'none'], ['Live candidates', assessment.candidateCount.live], ['Test candidates', assessment.candidateCount.sandbox]])}
<p class="label">Public sign-up link</p>${copyable('invite-url', data.inviteUrl, 'public sign-up link')}
<p><a class="button small" href="${localLink(data.inviteUrl)}">Sign someone up in the simulator</a></p>
</section>
<section class="card" aria-labelledby="candidates"><div class="card-head"><h2 id="candidates">Candidates</h2></div>
${table('Candidates', ['Candidate', 'Mode', 'Progress', 'Tests done', 'Unlocked', 'Registered'], data.candidates.map((candidate) => candidateRow(assessment, candidate)), { empty: 'Nobody has registered yet.', captionHidden: true })}
</section>
<section class="card" aria-labelledby="invitations"><div class="card-head"><h2 id="invitations">Invitations waiting</h2></div>
<p class="hint">Invited and not registered yet; once someone registers they move to Candidates.</p>
${table('Invitations waiting', ['Address', 'Mode', 'Status', 'Invited', 'Link'], data.invitations.map((invitation) => [
    invitation.email,
    modeBadge(invitation.mode),
    badge('invited', 'info'),
    timeOf(invitation.invitedAt),
    invitation.invitationToken
      ? html`<a href="${localLink(invitationUrl(data.appUrl, assessment.id, invitation.invitationToken))}">Open invitation</a>`
      : html`<span class="muted">rebuild the read models to show it</span>`,
  ]), { empty: 'No invitation waiting.', captionHidden: true })}
</section></div>
<div>
<section class="card" aria-labelledby="tests"><div class="card-head"><h2 id="tests">Tests, in sitting order</h2></div>
${table('Tests', ['#', 'Test', 'Type'], assessment.tests.map((test, index) => [index + 1, html`${test.name}<br>${code(test.slug)}`, test.type === 'custom' ? badge('custom', 'warn') : badge('library', 'muted')]), { captionHidden: true })}
</section>
${actionsCard(context, data)}
</div></div>`,
  };
};
