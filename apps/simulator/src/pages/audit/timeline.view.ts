import type { RecordedEvent } from '#event-store';
import { code, jsonBlock, timeOf } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';

const AS_OF_STREAM = /^(candidate|assessment)-(.+)$/;

/** One event as auditors read it: what, where in the log, when, who asked, and the data recorded. */
export const timeline = (events: RecordedEvent[]): Html => html`<ol class="timeline">${events.map((event) => {
  const asOfTarget = AS_OF_STREAM.exec(event.streamId);
  return html`<li>
<div class="event-head"><span class="event-type">${event.type}</span><span class="muted">revision ${event.revision} · position ${event.position.toString()}</span></div>
<div class="meta">
<span>domain time ${timeOf(event.metadata.time)}</span><span>recorded ${timeOf(event.recordedAt)}</span>
<span>actor ${code(event.metadata.actor)}</span><span>request ${code(event.metadata.requestId)}</span>
${event.metadata.correlationId !== event.metadata.requestId ? html`<span>correlation ${code(event.metadata.correlationId)}</span>` : ''}
${asOfTarget ? html`<a href="/audit/as-of?resource=${asOfTarget[1]}&amp;id=${encodeURIComponent(asOfTarget[2] ?? '')}&amp;at=${encodeURIComponent(event.metadata.time)}">state as of here</a>` : ''}
</div>
<details><summary>Data and metadata</summary>${jsonBlock({ id: event.id, data: event.data, metadata: event.metadata })}</details>
</li>`;
})}</ol>`;
