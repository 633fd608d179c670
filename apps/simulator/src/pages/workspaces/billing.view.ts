import type { BillingDocument, CandidateDocument, WorkspaceDocument } from '#read-models';
import { code, table, timeOf } from '../shared/components.js';
import { html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import { workspacePage } from './workspace-frame.js';

export const billingPage = (workspace: WorkspaceDocument, billing: BillingDocument, candidates: Map<string, CandidateDocument>): PageShape => workspacePage(workspace, 'billing', html`
<div class="stats">
<div class="stat"><b>${billing.freeAllowance}</b><span>free live candidates</span></div>
<div class="stat"><b>${billing.billedCandidates.length}</b><span>billed candidates</span></div>
</div>
<section class="card" aria-labelledby="billed">
<div class="card-head"><h2 id="billed">Billed candidates</h2></div>
<p class="hint">A live candidate is billed once, at the first unlock of one of their results after the workspace's free allowance of live candidates has been unlocked. Test candidates are never billed.</p>
${table('Billed candidates', ['Candidate', 'Result that billed them', 'Charged'], billing.billedCandidates.map((billed) => [
    html`<a href="/candidates/${encodeURIComponent(billed.candidateId)}">${candidates.get(billed.candidateId)?.email ?? billed.candidateId}</a><br><span class="muted mono">${billed.candidateId}</span>`,
    code(billed.resultId),
    timeOf(billed.chargedAt),
  ]), { empty: 'Nobody billed yet.', captionHidden: true })}
</section>`);
