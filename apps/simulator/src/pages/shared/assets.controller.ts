import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { apiError } from '#http';
import { ASSETS } from './assets.js';

/** The style sheet and the few lines of script, from this process: no CDN, no front-end build. */
@Controller('assets')
@ApiExcludeController()
export class AssetsController {
  @Get(':name')
  asset(@Param('name') name: string, @Res() reply: FastifyReply): void {
    const asset = ASSETS.get(name);
    if (!asset) throw apiError('not_found');
    void reply.header('Cache-Control', 'public, max-age=86400').header('X-Content-Type-Options', 'nosniff').type(asset.type).send(asset.body);
  }
}
