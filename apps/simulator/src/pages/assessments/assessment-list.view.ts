import type { AssessmentDocument, WorkspaceDocument } from '#read-models';
import { badge, table, timeOf } from '../shared/components.js';
import { html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import { workspacePage } from '../workspaces/workspace-frame.js';

export const assessmentPath = (assessmentId: string): string => `/assessments/${encodeURIComponent(assessmentId)}`;

export const statusBadge = (status: AssessmentDocument['status']) => (status === 'active' ? badge('active', 'ok') : badge('archived', 'muted'));

export const assessmentListPage = (workspace: WorkspaceDocument, assessments: AssessmentDocument[], next: string | null, publicBaseUrl: string): PageShape =>
  workspacePage(workspace, 'assessments', html`<section class="card" aria-labelledby="assessments">
<div class="card-head"><h2 id="assessments">Assessments</h2></div>
<p class="hint">Integrators create assessments and invite people through the public API (<code>POST ${publicBaseUrl}/v1/assessments</code>, then <code>…/invitations</code>); the key page has a ready curl.</p>
${table('Assessments, newest first', ['Name', 'Status', 'Tests', 'Live candidates', 'Test candidates', 'Deadline', 'Created'], assessments.map((assessment) => [
    html`<a href="${assessmentPath(assessment.id)}"><strong>${assessment.name}</strong></a><br><span class="muted mono">${assessment.id}</span>`,
    statusBadge(assessment.status),
    assessment.tests.length,
    assessment.candidateCount.live,
    assessment.candidateCount.sandbox,
    assessment.deadline ?? html`<span class="muted">none</span>`,
    timeOf(assessment.createdAt),
  ]), { empty: 'No assessment yet.', captionHidden: true })}
${next ? html`<p><a class="button" href="?after=${next}">Older assessments</a></p>` : ''}
</section>`);
