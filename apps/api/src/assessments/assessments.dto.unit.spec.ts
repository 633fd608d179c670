import 'reflect-metadata';
import { validateSync } from 'class-validator';
import { ApiError, EdgeValidationPipe } from '#http';
import { CreateAssessmentBody } from './assessments.dto.js';

const pipe = new EdgeValidationPipe();
const validate = (value: Record<string, unknown>) => pipe.transform(value, { type: 'body', metatype: CreateAssessmentBody });
const refusal = async (value: Record<string, unknown>) => {
  const error = await validate(value).then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ApiError);
  return { status: (error as ApiError).status, code: (error as ApiError).code, message: (error as ApiError).message };
};

const TESTS_RULE = 'tests must be a list of 1 to 10 test slugs';
const slugs = (count: number) => Array.from({ length: count }, (_, index) => `slug-${index}`);

describe('CreateAssessmentBody', () => {
  it('takes 1 to 10 distinct slugs in their order', async () => {
    expect(await validate({ name: ' Backend ', tests: ['b', 'a'] })).toEqual(expect.objectContaining({ name: 'Backend', tests: ['b', 'a'] }));
    expect(await validate({ name: 'x', tests: slugs(10), deadline: null })).toEqual(expect.objectContaining({ tests: slugs(10) }));
  });

  it.each([
    ['missing', undefined, TESTS_RULE], ['not a list', 'slug-1', TESTS_RULE], ['empty', [], TESTS_RULE], ['11 slugs', slugs(11), TESTS_RULE],
    ['a slug that is not text', ['a', 5], TESTS_RULE], ['null in the list', [null], TESTS_RULE], ['a repeat', ['a', 'b', 'a'], 'tests must not repeat a slug'],
  ])('answers tests %s with 422 validation_failed', async (_label, tests, message) => {
    expect(await refusal({ name: 'x', tests })).toEqual({ status: 422, code: 'validation_failed', message });
  });

  it('refuses 11 repeated slugs for their number, the cheaper rule', async () => {
    expect(await refusal({ name: 'x', tests: Array.from({ length: 11 }, () => 'a') })).toMatchObject({ code: 'validation_failed', message: TESTS_RULE });
  });

  // The rules alone, on a typed body: turning 100 000 items into one (class-transformer) is linear but
  // slow under Jest's module sandbox; the service never gets there (jsonExcess, libs/http).
  it('judges 100 000 distinct slugs in time linear in the list, not quadratic (the 10-item limit first)', () => {
    const body = Object.assign(new CreateAssessmentBody(), { name: 'x', tests: slugs(100_000) });
    const started = performance.now();
    const errors = validateSync(body, { forbidUnknownValues: false });
    expect(performance.now() - started).toBeLessThan(200);
    expect(errors.map((error) => [error.property, Object.values(error.constraints ?? {})])).toEqual([['tests', [TESTS_RULE]]]);
  });
});
