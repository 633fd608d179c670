import { Controller, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { apiError } from '#http';
import { MAX_ADVANCE_SECONDS } from '#platform';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { isWholeNumber, validationFailed } from '#domain';
import { InternalTokenGuard } from '../auth/internal-token.guard.js';
import { requiredBody } from '../auth/internal-context.js';
import { InternalRoute } from '../openapi/internal-document.js';
import { AdvanceClockBody } from '../openapi/internal-bodies.js';

@Controller('internal/clock')
@UseGuards(InternalTokenGuard)
export class ClockController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  /** Only with SIMULATED_CLOCK=true; otherwise the route does not exist. */
  @Post()
  @HttpCode(200)
  @InternalRoute('Move the simulated clock forward (only with SIMULATED_CLOCK=true)', 200, [404, 422], AdvanceClockBody)
  async advance(@Req() request: FastifyRequest) {
    const clock = this.infra.simulatedClock;
    if (!clock) throw apiError('not_found');
    const { advanceSeconds } = requiredBody(request);
    if (!isWholeNumber(advanceSeconds, 1, MAX_ADVANCE_SECONDS)) throw validationFailed(`advanceSeconds must be a whole number from 1 to ${MAX_ADVANCE_SECONDS}`);
    return { data: { now: await clock.advance(advanceSeconds, request.id) } };
  }
}
