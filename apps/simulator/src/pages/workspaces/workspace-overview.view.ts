import type { ApiKeyDocument, WorkspaceDocument } from '#read-models';
import type { IssuedKey } from '#commands';
import { actionButton, code, copyable, csrfField, facts, modeBadge, table, timeOf } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import type { PageContext } from '../shared/page-context.js';
import type { WorkspaceSummary } from './workspace-summaries.js';
import { workspacePage } from './workspace-frame.js';

export interface OverviewData {
  summary: WorkspaceSummary;
  keys: ApiKeyDocument[];
  sandboxRemaining: number;
  sandboxLimit: number;
  publicBaseUrl: string;
  /** Just issued or regenerated: the only time its secret is shown. */
  issued: IssuedKey | null;
}

const issuedCard = (issued: IssuedKey, publicBaseUrl: string): Html => {
  const bearer = `${issued.key}:${issued.secret}`;
  const curl = `curl -H "Authorization: Bearer ${bearer}" ${publicBaseUrl}/v1/me`;
  const createAssessment = `curl -X POST -H "Authorization: Bearer ${bearer}" -H "Content-Type: application/json" \\\n  -d '{"name":"Backend engineer","tests":["numerical-reasoning","verbal-reasoning"]}' \\\n  ${publicBaseUrl}/v1/assessments`;
  return html`<section class="card highlight" aria-labelledby="issued-key" id="issued">
<div class="card-head"><h2 id="issued-key">New ${issued.mode} key: copy the secret now</h2>${modeBadge(issued.mode)}</div>
<p>The secret is shown this once; only its hash is kept. Regenerate the key if it is lost.</p>
<p class="label">Key</p>${copyable('issued-key-value', issued.key, 'key')}
<p class="label">Secret</p>${copyable('issued-secret-value', issued.secret, 'secret')}
<p class="label">Try it</p>${copyable('issued-curl', curl, 'curl command')}
<p class="label">Create an assessment</p>${copyable('issued-curl-assessment', createAssessment, 'curl command to create an assessment')}
</section>`;
};

const keysCard = (context: PageContext, workspace: WorkspaceDocument, keys: ApiKeyDocument[]): Html => html`<section class="card" aria-labelledby="api-keys">
<div class="card-head"><h2 id="api-keys">API keys</h2></div>
${table('API keys', ['Key', 'Mode', 'Issued', ''], keys.map((key) => [
    html`${code(key.key)}<br><span class="muted">${key.id}</span>`,
    modeBadge(key.mode),
    timeOf(key.issuedAt),
    actionButton(context, `/api-keys/${encodeURIComponent(key.id)}/regenerate`, 'Regenerate', {
      small: true, style: 'danger', confirm: `Regenerate ${key.key}? The current key and secret stop working at once.`,
    }),
  ]), { empty: 'No key yet.', captionHidden: true })}
<form method="post" action="/workspaces/${encodeURIComponent(workspace.id)}/api-keys" class="form-row">
${csrfField(context)}
<fieldset class="field"><legend>New key</legend><div class="row">
<label><input type="radio" name="mode" value="live" checked> Live</label>
<label><input type="radio" name="mode" value="sandbox"> Sandbox (test candidates only)</label>
</div></fieldset>
<button type="submit" class="button primary">Create key</button>
</form>
</section>`;

const customTestsCard = (context: PageContext, workspace: WorkspaceDocument): Html => html`<section class="card" aria-labelledby="custom-tests">
<div class="card-head"><h2 id="custom-tests">Custom tests</h2></div>
<p class="hint">The workspace's own tests: append them to an assessment from its page.</p>
${table('Custom tests', ['Name', 'Slug', 'Minutes', 'Questions'], workspace.customTests.map((test) => [test.name, code(test.slug), test.minutes, test.questionCount]), { empty: 'No custom test yet.', captionHidden: true })}
<form method="post" action="/workspaces/${encodeURIComponent(workspace.id)}/custom-tests" class="form-row">
${csrfField(context)}
<div class="field"><label for="custom-name">Name</label><input id="custom-name" name="name" type="text" required maxlength="200" placeholder="Warehouse safety"></div>
<div class="field small-field"><label for="custom-minutes">Minutes</label><input id="custom-minutes" name="minutes" type="number" min="1" step="1" value="15" required></div>
<div class="field small-field"><label for="custom-questions">Questions</label><input id="custom-questions" name="questionCount" type="number" min="1" step="1" value="10" required></div>
<button type="submit" class="button">Add test</button>
</form>
</section>`;

export const workspaceOverviewPage = (context: PageContext, data: OverviewData): PageShape => {
  const { workspace } = data.summary;
  return workspacePage(workspace, 'overview', html`
${data.issued ? issuedCard(data.issued, data.publicBaseUrl) : ''}
<div class="stats">
<div class="stat"><b>${data.summary.assessments}</b><span>assessments</span></div>
<div class="stat"><b>${data.summary.liveCandidates}</b><span>live candidates</span></div>
<div class="stat"><b>${data.summary.testCandidates}</b><span>test candidates</span></div>
<div class="stat"><b>${data.sandboxRemaining} / ${data.sandboxLimit}</b><span>sandbox places left (30 days)</span></div>
</div>
<section class="card" aria-labelledby="workspace-facts"><div class="card-head"><h2 id="workspace-facts">Workspace</h2></div>
${facts([['Id', code(workspace.id)], ['Created', timeOf(workspace.createdAt)], ['Free live candidates', workspace.freeAllowance], ['Public API', code(`${data.publicBaseUrl}/v1`)]])}
${workspace.verified ? '' : html`<p class="note warn">Unverified: assessments can be created, invitations are refused (403 <code>workspace_unverified</code>) until someone verifies it.</p>`}
</section>
<div class="grid">${keysCard(context, workspace, data.keys)}${customTestsCard(context, workspace)}</div>`,
    workspace.verified ? undefined : actionButton(context, `/workspaces/${encodeURIComponent(workspace.id)}/verify`, 'Verify workspace', { style: 'primary' }));
};
