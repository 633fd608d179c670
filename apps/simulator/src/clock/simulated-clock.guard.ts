import { type CanActivate, Inject, Injectable } from '@nestjs/common';
import { apiError } from '#http';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';

/** Without SIMULATED_CLOCK=true the clock's route does not exist: 404 before its body is read. */
@Injectable()
export class SimulatedClockGuard implements CanActivate {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  canActivate(): boolean {
    if (!this.infra.simulatedClock) throw apiError('not_found');
    return true;
  }
}
