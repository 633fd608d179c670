import { Body, Inject, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { JsonBody, apiError } from '#http';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { InternalController } from '../auth/internal-token.guard.js';
import { InternalRoute } from '../openapi/internal-route.js';
import { single } from '../openapi/internal-schemas.js';
import { AdvanceClockBody } from './clock.dto.js';
import { SimulatedClockGuard } from './simulated-clock.guard.js';

@InternalController('internal/clock', SimulatedClockGuard)
export class ClockController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  /** Only with SIMULATED_CLOCK=true; otherwise the route does not exist. */
  @Post()
  @JsonBody()
  @InternalRoute({
    id: 'advanceClock', tag: 'Operations', summary: 'Move the simulated clock forward',
    description: 'Moves the domain clock forward by whole seconds (deadlines and the sandbox window follow it). Only with SIMULATED_CLOCK=true; otherwise the route does not exist (404).',
    answers: [{ status: 200, description: 'The domain time now', schema: single('ClockNow') }],
    refuses: { 404: ['not_found'] },
    body: AdvanceClockBody,
  })
  async advance(@Req() request: FastifyRequest, @Body() body: AdvanceClockBody) {
    const clock = this.infra.simulatedClock;
    if (!clock) throw apiError('not_found');
    return { data: { now: await clock.advance(body.advanceSeconds, request.id) } };
  }
}
