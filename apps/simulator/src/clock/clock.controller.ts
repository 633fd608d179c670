import { Body, Controller, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { JsonBody, apiError } from '#http';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { InternalTokenGuard } from '../auth/internal-token.guard.js';
import { InternalRoute } from '../openapi/internal-document.js';
import { AdvanceClockBody } from './clock.dto.js';
import { SimulatedClockGuard } from './simulated-clock.guard.js';

@Controller('internal/clock')
@UseGuards(InternalTokenGuard, SimulatedClockGuard)
export class ClockController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  /** Only with SIMULATED_CLOCK=true; otherwise the route does not exist. */
  @Post()
  @HttpCode(200)
  @JsonBody()
  @InternalRoute('Move the simulated clock forward (only with SIMULATED_CLOCK=true)', 200, [404, 422], AdvanceClockBody)
  async advance(@Req() request: FastifyRequest, @Body() body: AdvanceClockBody) {
    const clock = this.infra.simulatedClock;
    if (!clock) throw apiError('not_found');
    return { data: { now: await clock.advance(body.advanceSeconds, request.id) } };
  }
}
