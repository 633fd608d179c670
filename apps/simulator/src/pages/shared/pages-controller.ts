import { Controller, UseFilters, UseGuards, applyDecorators } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PageErrorFilter } from './page-error.filter.js';
import { PageSessionGuard } from './page-session.guard.js';

/** A controller of signed-in pages: behind the session guard, errors answered as pages, out of the OpenAPI document. */
export const PagesController = (path?: string) =>
  applyDecorators(path === undefined ? Controller() : Controller(path), ApiExcludeController(), UseGuards(PageSessionGuard), UseFilters(PageErrorFilter));
