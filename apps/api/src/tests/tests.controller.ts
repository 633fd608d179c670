import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { CATALOGUE, TEST_TYPES } from '../../../../libs/domain/src/index.js';
import { parseEnum } from '../../../../libs/http/src/index.js';
import { ApiKeyGuard } from '../auth/api-key.guard.js';

/** The library catalogue ships with the service: the same list for every workspace, no cursor. */
@Controller('v1/tests')
@UseGuards(ApiKeyGuard)
export class TestsController {
  @Get()
  list(@Query() query: Record<string, unknown>) {
    const type = parseEnum(query.type, 'type', TEST_TYPES);
    const data = CATALOGUE.filter((test) => type === undefined || test.type === type);
    return { data, meta: { total: data.length } };
  }
}
