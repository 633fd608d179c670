import { Controller, Get, Query } from '@nestjs/common';
import { CATALOGUE, type CatalogueTestType, TEST_TYPES } from '#domain';
import { OneOfParam } from '#http';
import { Answers, Authenticated, Operation, Refuses } from '../openapi/operation.decorators.js';
import { list } from '../openapi/response-schemas.js';

export class ListTestsQuery {
  // The complete set of types is not shown by the contract: the document lists today's, closes none.
  @OneOfParam(TEST_TYPES, 'Only tests of this type', undefined, { open: true })
  type?: CatalogueTestType;
}

/** The library catalogue ships with the service: the same list for every workspace, no cursor. */
@Controller('v1/tests')
@Authenticated('Tests')
export class TestsController {
  @Get()
  @Operation('listTests', 'Test catalogue', 'The same list for every workspace; `meta.total` counts it, there is no cursor.')
  @Answers(200, 'The catalogue, filtered by type', list('Test', 'CatalogueMeta'), 'tests')
  @Refuses({ 400: ['invalid_parameter'] })
  list(@Query() { type }: ListTestsQuery) {
    const data = CATALOGUE.filter((test) => type === undefined || test.type === type);
    return { data, meta: { total: data.length } };
  }
}
