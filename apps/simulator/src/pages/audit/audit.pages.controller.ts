import { Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiError, parseTime } from '#http';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { queryParam } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PagesController } from '../shared/pages-controller.js';
import { asOf, type AsOfResource } from './as-of.query.js';
import { asOfPage, auditHomePage, streamPage, type AsOfForm } from './audit.view.js';

/** Read-only views of the log: a stream as recorded (GET /internal/streams/{id}) and a resource as of a time. */
@PagesController('audit')
export class AuditPagesController {
  constructor(private readonly responder: PageResponder, @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure) {}

  @Get()
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.responder.show(request, reply, auditHomePage({ resource: 'candidate', id: '', at: await this.infra.clock.now() }));
  }

  @Get('streams')
  byQuery(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const streamId = queryParam(request, 'stream').trim();
    if (streamId) this.responder.redirect(reply, `/audit/streams/${encodeURIComponent(streamId)}`);
    else this.responder.redirect(reply, '/audit', { kind: 'error', message: 'Give a stream id.' });
  }

  @Get('streams/:streamId')
  async stream(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('streamId') streamId: string): Promise<void> {
    const events = await this.infra.eventStore.readStream(streamId);
    if (events.length === 0) throw apiError('not_found', `There is no stream ${streamId}.`);
    this.responder.show(request, reply, streamPage(streamId, events));
  }

  @Get('as-of')
  async asOf(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const resource: AsOfResource = queryParam(request, 'resource') === 'assessment' ? 'assessment' : 'candidate';
    const form: AsOfForm = { resource, id: queryParam(request, 'id').trim(), at: queryParam(request, 'at').trim() };
    if (!form.id) throw apiError('not_found', 'Give the id of a candidate or an assessment.');
    const at = parseTime(form.at, 'at') ?? new Date();
    this.responder.show(request, reply, asOfPage(form, await asOf(this.infra.eventStore, this.infra.config.appUrl, resource, form.id, at)));
  }
}
