import { WEBHOOK_EVENT_NAMES } from '#domain';
import type { WebhookDelivery } from '#messaging';
import type { WorkspaceDocument } from '#read-models';
import { actionButton, badge, copyable, csrfField, jsonBlock, table, timeOf, type Tone } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import type { PageContext } from '../shared/page-context.js';
import { workspacePage } from './workspace-frame.js';

export interface WebhookSettingsShown {
  url: string;
  events: string[];
  secret: string;
  enabled: boolean;
  disabledReason: 'gone' | 'failing' | null;
}

const DISABLED_BECAUSE: Record<'gone' | 'failing', string> = {
  gone: 'the address answered 410 Gone',
  failing: 'every attempt to it failed for 5 days',
};

const STATUS_TONE: Record<string, Tone> = { succeeded: 'ok', pending: 'info', failed: 'bad' };

const settingsCard = (context: PageContext, workspace: WorkspaceDocument, settings: WebhookSettingsShown | null): Html => {
  const action = `/workspaces/${encodeURIComponent(workspace.id)}/webhook`;
  const chosen = new Set(settings?.events ?? WEBHOOK_EVENT_NAMES);
  const state = settings
    ? html`${settings.enabled ? badge('enabled', 'ok') : badge('disabled', 'bad')}`
    : badge('not set up', 'muted');
  return html`<section class="card" aria-labelledby="webhook-settings">
<div class="card-head"><h2 id="webhook-settings">Settings</h2>${state}</div>
${settings && !settings.enabled && settings.disabledReason
    ? html`<p class="note warn">Disabled because ${DISABLED_BECAUSE[settings.disabledReason]} (<code>${settings.disabledReason}</code>). Events raised meanwhile are logged as failed and not sent later. Saving the settings again enables the address.</p>`
    : ''}
<form method="post" action="${action}" class="stack">
${csrfField(context)}
<div class="field"><label for="webhook-url">Address</label>
<input id="webhook-url" name="url" type="url" required value="${settings?.url ?? ''}" placeholder="https://hooks.example.com/hiring" aria-describedby="webhook-url-hint">
<p class="hint" id="webhook-url-hint">An absolute https:// address of a public host (http:// and private hosts only when WEBHOOK_ALLOW_INSECURE=true).</p></div>
<fieldset class="field"><legend>Events</legend><div class="checks">
${WEBHOOK_EVENT_NAMES.map((name) => html`<label><input type="checkbox" name="events" value="${name}"${chosen.has(name) ? html` checked` : ''}> ${name}</label>`)}
</div></fieldset>
<div class="row"><button type="submit" class="button primary">${settings ? 'Save and enable' : 'Save webhook'}</button></div>
</form>
${settings ? html`<hr class="rule">
<div class="field"><span class="label">Signing secret</span>
<details><summary>Show the secret</summary>${copyable('webhook-secret', settings.secret, 'signing secret')}</details>
<p class="hint">HMAC-SHA256 over <code>t.body</code>, in <code>X-Webhook-Signature</code>. After a rotation the old secret also signs for 24 hours.</p></div>
<div class="row">${actionButton(context, `${action}/rotate-secret`, 'Rotate secret', { style: 'danger', confirm: 'Rotate the signing secret? The old one keeps signing for 24 hours.' })}</div>` : ''}
</section>`;
};

/** Delivers a window of events again (POST /internal/workspaces/{id}/webhook/recover). */
const recoveryCard = (context: PageContext, workspace: WorkspaceDocument, settings: WebhookSettingsShown, since: string): Html => html`<section class="card" aria-labelledby="recovery">
<div class="card-head"><h2 id="recovery">Recover missed deliveries</h2></div>
<div class="stack">
<p class="hint">Every event of the window that the settings above select now, live and test, is delivered again to the saved address, one after another in the log's order: the original envelope (same id: receivers de-duplicate on it), signed with the current secret. Events are kept 30 days.</p>
${settings.enabled ? '' : html`<p class="note warn">The address is disabled: recovered deliveries would be logged as failed (<code>endpoint_disabled</code>). Save the settings first (that enables it), then redeliver.</p>`}
<form method="post" action="/workspaces/${encodeURIComponent(workspace.id)}/webhook/recover" class="form-row">
${csrfField(context)}
<div class="field"><label for="recover-since">Since</label><input id="recover-since" name="since" type="text" required value="${since}" aria-describedby="recover-hint"></div>
<div class="field"><label for="recover-until">Until (optional)</label><input id="recover-until" name="until" type="text" placeholder="now" aria-describedby="recover-hint"></div>
<button type="submit" class="button primary">Redeliver</button>
</form>
<p class="hint" id="recover-hint">Domain time: a date (midnight UTC) or a date-time with <code>Z</code> or an offset; both ends included.</p>
</div>
</section>`;

const attemptLog = (delivery: WebhookDelivery): Html => delivery.attemptLog.length === 0
  ? html`<span class="muted">no attempt</span>`
  : html`<details><summary>${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}</summary>
<ol class="attempts">${delivery.attemptLog.map((attempt) => html`<li>${timeOf(attempt.at)} · ${attempt.responseStatus ?? 'no answer'} · ${attempt.durationMs} ms${attempt.error ? html` · <code>${attempt.error}</code>` : ''}</li>`)}</ol>
</details>`;

const deliveriesCard = (context: PageContext, workspace: WorkspaceDocument, deliveries: WebhookDelivery[] | null): Html => html`<section class="card" aria-labelledby="deliveries">
<div class="card-head"><h2 id="deliveries">Delivery log</h2><div class="card-actions"><a class="button small" href="/workspaces/${encodeURIComponent(workspace.id)}/webhook#deliveries">Refresh</a></div></div>
<p class="hint">Newest first; every attempt is kept for 30 days. A resend is a new delivery of the same event (same envelope id).</p>
${deliveries === null
    ? html`<p class="note warn">The messaging side is not running in this process: the delivery log cannot be read here.</p>`
    : table('Webhook deliveries', ['Event', 'Status', 'Attempts', 'Last answer', 'Created', ''], deliveries.map((delivery) => [
      html`<strong>${delivery.event}</strong>${delivery.sandbox ? html` ${badge('sandbox', 'warn')}` : ''}<br><span class="muted mono">${delivery.id}</span>`,
      badge(delivery.status, STATUS_TONE[delivery.status] ?? 'muted'),
      attemptLog(delivery),
      html`${delivery.lastResponseStatus ?? '—'}${delivery.lastError ? html`<br><code>${delivery.lastError}</code>` : ''}`,
      timeOf(delivery.createdAt),
      html`${actionButton(context, `/webhook-deliveries/${encodeURIComponent(delivery.id)}/resend`, 'Resend', { small: true, hidden: { workspaceId: workspace.id } })}
<details><summary>Envelope</summary>${jsonBlock(delivery.envelope)}</details>`,
    ]), { empty: 'No delivery yet: events of this workspace are delivered once the webhook is saved.', captionHidden: true })}
</section>`;

/** `recoverySince`: what the recovery form offers as its start (a day before now, domain time). */
export const webhookPage = (
  context: PageContext, workspace: WorkspaceDocument, settings: WebhookSettingsShown | null, deliveries: WebhookDelivery[] | null, recoverySince: string,
): PageShape => workspacePage(workspace, 'webhook', html`${settingsCard(context, workspace, settings)}${settings ? recoveryCard(context, workspace, settings, recoverySince) : ''}${deliveriesCard(context, workspace, deliveries)}`);
