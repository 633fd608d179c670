import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/* Described for the OpenAPI document; the window's rules are recoveryWindow's (webhook-recovery.ts), shared with the page. */

const TIME = 'A date (YYYY-MM-DD, midnight UTC) or an ISO 8601 date-time with Z or an offset, domain time';

export class RecoverWebhookBody {
  @ApiProperty({ type: 'string', example: '2026-11-20T09:00:00.000Z', description: `${TIME}; at most 30 days before now` })
  since!: string;

  @ApiPropertyOptional({ type: 'string', example: '2026-11-21T09:00:00.000Z', description: `${TIME}; now when absent; not before since` })
  until?: string;
}
