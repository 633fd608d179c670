import { Readable } from 'node:stream';
import { Get, Header, Inject, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { exportLines, storeSource } from '#event-store';
import { apiError } from '#http';
import { createSealer } from '#runtime/audit-wiring.js';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { InternalController } from '../auth/internal-token.guard.js';
import { InternalRoute } from '../openapi/internal-route.js';
import { single } from '../openapi/internal-schemas.js';

/**
 * The audit command line's way in while the service holds the embedded store's DATA_DIR (a second
 * process may not open it): the export it verifies, and sealing on demand.
 */
@InternalController('internal/audit')
export class LogIntegrityController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  @Get('seal')
  @InternalRoute({
    id: 'getLatestSeal', tag: 'Audit', summary: 'Read the latest seal',
    description: 'The latest seal of the event log: what an auditor keeps to check an export later (docs/audit.md). 404 while nothing is sealed.',
    answers: [{ status: 200, description: 'The seal', schema: single('LogSeal') }],
    refuses: { 404: ['not_found'] },
  })
  async latestSeal() {
    const seal = await this.infra.audit.seals.latest();
    if (seal === null) throw apiError('not_found');
    return { data: seal };
  }

  /** Seals every event not sealed yet, then answers the latest seal: what an auditor keeps. */
  @Post('seal')
  @InternalRoute({
    id: 'sealLog', tag: 'Audit', summary: 'Seal the log now',
    description: 'Seals every event not sealed yet, then answers the latest seal (the same one when nothing new was recorded). 404 on an empty log.',
    answers: [{ status: 200, description: 'The latest seal', schema: single('LogSeal') }],
    refuses: { 404: ['not_found'] },
  })
  async sealNow() {
    const seal = await createSealer(this.infra, this.infra.config, this.infra.logger).sealPending();
    if (seal === null) throw apiError('not_found');
    return { data: seal };
  }

  /** The log as stored (what verify checks); `?view=opened` shows personal data in the clear, or as erased, for replay. */
  @Get('export')
  @ApiOperation({
    operationId: 'exportEventLog', summary: 'Export the event log',
    description: 'The event log with its hashes and seals, as JSON lines: a header line, the seals, then every event in global order; what `npm run audit -- verify` checks (docs/audit.md).',
  })
  @ApiTags('Audit')
  @ApiQuery({ name: 'view', required: false, description: '`opened`: personal data in the clear (or erased) instead of sealed', schema: { type: 'string', enum: ['opened'] } })
  @ApiResponse({ status: 200, description: 'A header line, the seals, then every event in global order', content: { 'application/x-ndjson': { schema: { type: 'string' } } } })
  @Header('Content-Type', 'application/x-ndjson; charset=utf-8')
  exportLog(@Query('view') view: unknown): StreamableFile {
    const { audit } = this.infra;
    const store = view === 'opened' ? this.infra.eventStore : audit.logStore;
    return new StreamableFile(Readable.from(exportLines(storeSource(store, audit.seals, audit.keys.signer.publicKey))));
  }
}
