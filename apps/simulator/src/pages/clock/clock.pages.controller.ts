import { Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '#http';
import { MAX_ADVANCE_SECONDS } from '#platform';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { AdvanceClockBody } from '../../clock/clock.dto.js';
import { validatedBody } from '../../validation/validated-body.js';
import { csrfField, timeOf } from '../shared/components.js';
import { html } from '../shared/html.js';
import { pageContext, type PageContext } from '../shared/page-context.js';
import { numberField } from '../shared/page-data.js';
import { field } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PagesController } from '../shared/pages-controller.js';

const STEPS: [string, number][] = [['1 hour', 3600], ['1 day', 86_400], ['7 days', 604_800], ['30 days', 2_592_000]];

const clockBody = (context: PageContext, now: string) => html`<section class="card" aria-labelledby="domain-time">
<div class="card-head"><h2 id="domain-time">Domain time</h2></div>
<p class="big-time">${timeOf(now)}</p>
<p class="hint">It drives every time the domain writes or compares (createdAt, deadlines, the sandbox window, the webhook 5-day rule…). It only moves forward.</p>
</section>
<section class="card" aria-labelledby="advance"><div class="card-head"><h2 id="advance">Move it forward</h2></div>
<div class="row">${STEPS.map(([label, seconds]) => html`<form method="post" action="/clock" class="inline">${csrfField(context)}<input type="hidden" name="advanceSeconds" value="${seconds}"><button type="submit" class="button">+ ${label}</button></form>`)}</div>
<form method="post" action="/clock" class="form-row">
${csrfField(context)}
<div class="field"><label for="advance-seconds">Seconds</label><input id="advance-seconds" name="advanceSeconds" type="number" min="1" max="${MAX_ADVANCE_SECONDS}" step="1" required></div>
<button type="submit" class="button primary">Advance</button>
</form></section>`;

/** Only with SIMULATED_CLOCK=true, like POST /internal/clock; otherwise these pages do not exist. */
@PagesController('clock')
export class ClockPagesController {
  constructor(private readonly responder: PageResponder, @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  private clock() {
    if (!this.infra.simulatedClock) throw apiError('not_found', 'The clock can only be moved with SIMULATED_CLOCK=true.');
    return this.infra.simulatedClock;
  }

  @Get()
  async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const now = await this.clock().now();
    this.responder.show(request, reply, { title: 'Clock', section: 'clock', body: clockBody(pageContext(request), now) });
  }

  @Post()
  async advance(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const clock = this.clock();
    const { advanceSeconds } = await validatedBody(AdvanceClockBody, { advanceSeconds: numberField(field(request, 'advanceSeconds')) });
    const now = await clock.advance(advanceSeconds, request.id);
    this.responder.done(reply, '/clock', `Clock moved forward ${advanceSeconds} seconds: it is now ${now}.`);
  }
}
