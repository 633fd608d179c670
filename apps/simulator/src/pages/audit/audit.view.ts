import type { RecordedEvent } from '#event-store';
import { jsonBlock } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import type { AsOfAnswer, AsOfResource } from './as-of.query.js';
import { timeline } from './timeline.view.js';

export interface AsOfForm {
  resource: AsOfResource;
  id: string;
  at: string;
}

const streamForm = (streamId: string): Html => html`<form method="get" action="/audit/streams" class="form-row">
<div class="field"><label for="stream-id">Stream id</label><input id="stream-id" name="stream" type="text" required value="${streamId}" placeholder="candidate-cand_…" aria-describedby="stream-hint"></div>
<button type="submit" class="button primary">Show timeline</button>
</form>
<p class="hint" id="stream-hint"><code>workspace-{id}</code>, <code>assessment-{id}</code>, <code>candidate-{id}</code>, or <code>simulated-clock</code>.</p>`;

const asOfFormView = (form: AsOfForm): Html => html`<form method="get" action="/audit/as-of" class="form-row">
<div class="field small-field"><label for="as-of-resource">Resource</label><select id="as-of-resource" name="resource">
<option value="candidate"${form.resource === 'candidate' ? html` selected` : ''}>Candidate</option>
<option value="assessment"${form.resource === 'assessment' ? html` selected` : ''}>Assessment</option>
</select></div>
<div class="field"><label for="as-of-id">Id</label><input id="as-of-id" name="id" type="text" required value="${form.id}"></div>
<div class="field"><label for="as-of-at">As of (domain time)</label><input id="as-of-at" name="at" type="text" required value="${form.at}" placeholder="2026-01-31T12:00:00.000Z"></div>
<button type="submit" class="button primary">Show state</button>
</form>`;

export const auditHomePage = (form: AsOfForm): PageShape => ({
  title: 'Audit',
  section: 'audit',
  lead: 'The log is the only source of truth: every change is an event in a stream, with who asked and when.',
  body: html`<div class="grid">
<section class="card" aria-labelledby="stream-title"><div class="card-head"><h2 id="stream-title">A stream's events</h2></div>${streamForm('')}</section>
<section class="card" aria-labelledby="as-of-title"><div class="card-head"><h2 id="as-of-title">State as of a time</h2></div>${asOfFormView(form)}</section>
</div>`,
});

export const streamPage = (streamId: string, events: RecordedEvent[]): PageShape => ({
  title: streamId,
  section: 'audit',
  trail: [{ label: 'Audit', href: '/audit' }],
  lead: `${events.length} event${events.length === 1 ? '' : 's'} in revision order, exactly as recorded.`,
  body: html`<section class="card">${streamForm(streamId)}</section><section class="card" aria-label="Timeline">${timeline(events)}</section>`,
});

export const asOfPage = (form: AsOfForm, answer: AsOfAnswer): PageShape => ({
  title: `${form.resource === 'candidate' ? 'Candidate' : 'Assessment'} as of ${form.at}`,
  section: 'audit',
  trail: [{ label: 'Audit', href: '/audit' }],
  body: html`<section class="card">${asOfFormView(form)}</section>
${answer.state === null ? '' : html`<section class="card" aria-labelledby="state-title"><div class="card-head"><h2 id="state-title">What the public API would have answered</h2></div>
<p class="hint">The read model folded in memory from the events below, in the shape of <code>GET /v1/${form.resource}s/{id}</code>.</p>${jsonBlock(answer.state)}</section>`}
<section class="card" aria-labelledby="events-title"><div class="card-head"><h2 id="events-title">Events of ${answer.streamId} up to then</h2><a class="button small" href="/audit/streams/${encodeURIComponent(answer.streamId)}">Whole stream</a></div>
<p class="hint">The state at that time is these events folded in order; the last one is the last change before it.</p>
${timeline(answer.events)}</section>`,
});
