import type { HealthSummary } from '../../health/health-summary.js';
import { badge, csrfField, table } from '../shared/components.js';
import { html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import type { PageContext } from '../shared/page-context.js';

export const healthPage = (context: PageContext, health: HealthSummary): PageShape => {
  const head = health.eventStore.headPosition === null ? null : BigInt(health.eventStore.headPosition);
  return {
    title: 'Health',
    section: 'health',
    actions: html`<a class="button" href="/health">Refresh</a>
<form method="post" action="/queues" class="inline">${csrfField(context)}<button type="submit" class="button primary">Queue dashboard</button></form>`,
    lead: 'The same summary as GET /internal/health: how far each read model has got through the log, Redis, and the queues.',
    body: html`<div class="stats">
<div class="stat"><b>${health.status === 'ok' ? badge('ok', 'ok') : badge('degraded', 'bad')}</b><span>service</span></div>
<div class="stat"><b>${health.eventStore.headPosition ?? '—'}</b><span>log head position</span></div>
<div class="stat"><b>${health.redis === 'ok' ? badge('reachable', 'ok') : badge('unreachable', 'bad')}</b><span>Redis</span></div>
</div>
<div class="grid">
<section class="card" aria-labelledby="read-models"><div class="card-head"><h2 id="read-models">Read models</h2></div>
${table('Read model checkpoints', ['Read model', 'Checkpoint', 'Behind the head'], Object.entries(health.readModels).map(([name, position]) => {
    const behind = head === null ? 0n : head - (position === null ? 0n : BigInt(position));
    return [name, position ?? '—', behind > 0n ? badge(`${behind} behind`, 'warn') : badge('up to date', 'ok')];
  }), { captionHidden: true })}
</section>
<section class="card" aria-labelledby="queues"><div class="card-head"><h2 id="queues">Queues</h2></div>
${health.queues === null
    ? html`<p class="note warn">Queue counts are not available (Redis unreachable, or no messaging in this process).</p>`
    : table('Queue counts', ['Queue', 'Waiting', 'Active', 'Delayed', 'Failed'], Object.entries(health.queues).map(([name, counts]) => [
      name, counts.waiting, counts.active, counts.delayed, counts.failed > 0 ? badge(String(counts.failed), 'bad') : counts.failed,
    ]), { captionHidden: true })}
</section></div>`,
  };
};
