import { ApiProperty } from '@nestjs/swagger';
import { MAX_ADVANCE_SECONDS } from '#platform';
import { WholeNumber } from '../validation/body-rules.js';

export class AdvanceClockBody {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 315360000 })
  @WholeNumber(1, MAX_ADVANCE_SECONDS, `advanceSeconds must be a whole number from 1 to ${MAX_ADVANCE_SECONDS}`)
  advanceSeconds!: number;
}
