import { actionButton, code, csrfField, table, timeOf } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import type { PageContext } from '../shared/page-context.js';
import type { WorkspaceSummary } from './workspace-summaries.js';
import { verifiedBadge, workspacePath } from './workspace-frame.js';

const createForm = (context: PageContext): Html => html`<section class="card" aria-labelledby="new-workspace">
<div class="card-head"><h2 id="new-workspace">New workspace</h2></div>
<form method="post" action="/workspaces" class="form-row">
${csrfField(context)}
<div class="field"><label for="workspace-name">Name</label><input id="workspace-name" name="name" type="text" required maxlength="200" placeholder="Acme Recruiting"></div>
<div class="field small-field"><label for="free-allowance">Free live candidates</label><input id="free-allowance" name="freeAllowance" type="number" min="0" step="1" value="0" aria-describedby="free-allowance-hint"></div>
<button type="submit" class="button primary">Create workspace</button>
</form>
<p class="hint" id="free-allowance-hint">Live candidates unlocked before billing starts. A new workspace is unverified: it can create assessments but not invite until verified.</p>
</section>`;

export const workspaceListPage = (context: PageContext, summaries: WorkspaceSummary[], next: string | null): PageShape => ({
  title: 'Workspaces',
  section: 'workspaces',
  lead: 'Every customer account of the platform. Open one to issue API keys, set up its webhook, see its assessments and billing.',
  body: html`${createForm(context)}
<section class="card" aria-labelledby="all-workspaces">
<div class="card-head"><h2 id="all-workspaces">All workspaces</h2></div>
${table('Workspaces, newest first', ['Name', 'Status', 'Assessments', 'Live candidates', 'Test candidates', 'API keys', 'Created', ''], summaries.map((summary) => [
    html`<a href="${workspacePath(summary.workspace.id)}"><strong>${summary.workspace.name}</strong></a><br>${code(summary.workspace.id)}`,
    verifiedBadge(summary.workspace.verified),
    html`<a href="${workspacePath(summary.workspace.id, 'assessments')}">${summary.assessments}</a>`,
    summary.liveCandidates,
    summary.testCandidates,
    summary.apiKeys,
    timeOf(summary.workspace.createdAt),
    summary.workspace.verified ? '' : actionButton(context, `/workspaces/${encodeURIComponent(summary.workspace.id)}/verify`, 'Verify', { small: true }),
  ]), { empty: 'No workspace yet: create the first one above.', captionHidden: true })}
${next ? html`<p><a class="button" href="/?after=${next}">Older workspaces</a></p>` : ''}
</section>`,
});
