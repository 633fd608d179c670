import { Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RegisterCandidate } from '#commands';
import { invitationUrl, inviteUrl, parseLink } from '#domain';
import { assessmentsProjection, listPendingInvitationsOfAssessment, type AssessmentDocument } from '#read-models';
import { INFRASTRUCTURE, type Infrastructure } from '#runtime/infrastructure.js';
import { internalContext } from '../../auth/internal-context.js';
import { registrationOf } from '../../candidates/candidates.dto.js';
import { requireKnownSignUpLink } from '../../validation/known-ids.js';
import { pageContext } from '../shared/page-context.js';
import { field, queryParam } from '../shared/page-http.js';
import { PageResponder } from '../shared/page-responder.js';
import { PagesController } from '../shared/pages-controller.js';
import { candidatePath } from './candidate.view.js';
import { linkPage, simulatorHomePage } from './registration.view.js';

/**
 * Where a demo starts: the links the service hands out (APP_URL points here) open these pages, and
 * registering goes through the same RegisterCandidate command as POST /internal/registrations.
 */
@PagesController()
export class RegistrationPagesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly responder: PageResponder,
    @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure,
  ) {}

  @Get('simulator')
  home(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.responder.show(request, reply, simulatorHomePage(pageContext(request)));
  }

  @Get('simulator/candidate')
  open(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const candidateId = queryParam(request, 'id').trim();
    if (candidateId) this.responder.redirect(reply, candidatePath(candidateId));
    else this.responder.redirect(reply, '/simulator', { kind: 'error', message: 'Give a candidate id.' });
  }

  @Get('invitations/:assessmentId/:token')
  async invitation(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('assessmentId') assessmentId: string, @Param('token') token: string): Promise<void> {
    const assessment = await this.infra.documents.get<AssessmentDocument>(assessmentsProjection.name, assessmentId);
    const pending = assessment ? await listPendingInvitationsOfAssessment(this.infra.documents, assessmentId, 1000) : [];
    const invited = pending.find((invitation) => invitation.invitationToken === token) ?? null;
    this.responder.show(request, reply, linkPage(pageContext(request), {
      kind: 'invitation', link: invitationUrl(this.infra.config.appUrl, assessmentId, token), assessment, invitedEmail: invited?.email ?? null, invitedMode: invited?.mode ?? null,
    }));
  }

  @Get('join/:assessmentId/:token')
  async join(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('assessmentId') assessmentId: string, @Param('token') token: string): Promise<void> {
    const assessment = await this.infra.documents.get<AssessmentDocument>(assessmentsProjection.name, assessmentId);
    this.responder.show(request, reply, linkPage(pageContext(request), {
      kind: 'invite', link: inviteUrl(this.infra.config.appUrl, assessmentId, token), assessment, invitedEmail: null, invitedMode: null,
    }));
  }

  @Post('simulator/registrations')
  async register(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const link = field(request, 'link').trim();
    // A personal link registers the invited person; anything else is sent as a sign-up link, and refused there if it is not one.
    const body = parseLink(link, 'invitation', this.infra.config.appUrl)
      ? { invitationUrl: link }
      : { inviteUrl: link, email: field(request, 'email'), firstName: field(request, 'firstName'), surname: field(request, 'surname') };
    const asked = await registrationOf(body, (signUpLink) => requireKnownSignUpLink(this.infra.documents, signUpLink, this.infra.config.appUrl));
    const { created, candidateId, assessmentId } = await this.commands.execute(new RegisterCandidate(asked, internalContext(request)));
    this.responder.done(reply, candidatePath(candidateId, assessmentId), created ? 'Registered. Start the assessment, or finish a test straight away.' : 'Already registered on this assessment: nothing changed.');
  }
}
