import 'reflect-metadata';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { ApiError } from '../errors/api-error.js';
import { EdgeValidationPipe } from './edge-validation.pipe.js';
import { NameListParam, OneOfParam, TextParam, TimeParam, WholeNumberParam } from './query-params.js';

class Query {
  @WholeNumberParam({ min: 1, max: 100, default: 50, description: 'rows' })
  limit: number = 50;

  @TimeParam('since')
  since?: string;

  @OneOfParam(['asc', 'desc'] as const, 'order', 'asc')
  order: 'asc' | 'desc' = 'asc';

  @TextParam('id', { maxLength: 12 })
  assessment?: string;

  @TextParam('another id', { maxLength: 12, longer: 'unknown id' })
  candidate?: string;

  @NameListParam(['aptitude', 'personality'] as const, 'types')
  type?: string[];
}

class Body {
  @IsArray({ message: 'not a list' })
  @ArrayMinSize(1, { message: 'empty' })
  @ArrayMaxSize(2, { message: 'too many', context: { code: 'too_many_candidates' } })
  candidates!: unknown[];
}

const pipe = new EdgeValidationPipe();
const query = (value: Record<string, unknown>) => pipe.transform(value, { type: 'query', metatype: Query });
const body = (value: Record<string, unknown>) => pipe.transform(value, { type: 'body', metatype: Body });
const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ApiError);
  return { status: (error as ApiError).status, code: (error as ApiError).code, message: (error as ApiError).message };
};

describe('EdgeValidationPipe', () => {
  it('refuses a list over its size on the body as sent, without reading its entries (class-transformer copies each)', async () => {
    let reads = 0;
    const entry = { get email() { reads += 1; return 'ann@example.com'; } };
    expect(await refusal(body({ candidates: [entry, entry, entry] }))).toEqual({ status: 422, code: 'too_many_candidates', message: 'too many' });
    expect(reads).toBe(0);
    // Within its size, the body is transformed as before.
    expect(await body({ candidates: [entry, entry] })).toEqual({ candidates: [{ email: 'ann@example.com' }, { email: 'ann@example.com' }] });
    expect(reads).toBeGreaterThan(0);
    // Not a list, or empty: the rules as before.
    expect(await refusal(body({ candidates: 'many' }))).toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it('types a valid query: defaults, whole numbers, times in the form the API writes', async () => {
    expect(await query({})).toEqual(expect.objectContaining({ limit: 50, order: 'asc' }));
    expect(await query({ limit: '007', since: '2026-10-01T11:00:00+02:00', order: 'desc', assessment: 'asm_1', other: 'ignored' }))
      .toEqual(expect.objectContaining({ limit: 7, since: '2026-10-01T09:00:00.000Z', order: 'desc', assessment: 'asm_1' }));
    // Text up to its maxLength, exactly; beyond it where a longer value is left to the route (an unknown id).
    expect(await query({ assessment: 'x'.repeat(12) })).toEqual(expect.objectContaining({ assessment: 'x'.repeat(12) }));
    expect(await query({ candidate: 'x'.repeat(13) })).toEqual(expect.objectContaining({ candidate: 'x'.repeat(13) }));
  });

  it.each([
    [{ limit: '0' }, 'limit'], [{ limit: '5.0' }, 'limit'], [{ limit: ['1', '2'] }, 'limit'], [{ since: 'yesterday' }, 'since'],
    [{ order: 'up' }, 'order'], [{ assessment: ['a', 'b'] }, 'assessment'], [{ assessment: 'x'.repeat(13) }, 'assessment'], [{ candidate: ['a', 'b'] }, 'candidate'],
  ])('answers a bad query parameter %j with 400 invalid_parameter naming it', async (value, name) => {
    const seen = await refusal(query(value));
    expect(seen).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(seen.message).toContain(name);
  });

  it.each([
    [{ limit: ['1', '2'] }, 'limit'], [{ since: ['2026-10-01', '2026-10-02'] }, 'since'], [{ order: ['asc', 'asc'] }, 'order'],
    [{ assessment: ['a', 'b'] }, 'assessment'], [{ candidate: ['a', 'a'] }, 'candidate'], [{ type: ['aptitude', 'personality'] }, 'type'],
  ])('answers a parameter given twice %j with 400 invalid_parameter saying so', async (value, name) => {
    expect(await refusal(query(value))).toEqual({ status: 400, code: 'invalid_parameter', message: `${name} is given more than once; give it once.` });
  });

  it('still reads a name list given once, and names the rule for a bad one', async () => {
    expect(await query({ type: 'aptitude,personality' })).toEqual(expect.objectContaining({ type: ['aptitude', 'personality'] }));
    expect((await refusal(query({ type: 'astrology' }))).message).not.toContain('more than once');
    expect((await refusal(query({ limit: '0' }))).message).toBe('limit must be a whole number from 1 to 100.');
  });

  it('answers a bad body with 422 validation_failed, or the code its rule names', async () => {
    expect(await refusal(body({}))).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(await refusal(body({ candidates: 'x' }))).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(await refusal(body({ candidates: [] }))).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(await refusal(body({ candidates: [1, 2, 3] }))).toMatchObject({ status: 422, code: 'too_many_candidates' });
    expect(await body({ candidates: [1, { email: 5 }] })).toEqual(expect.objectContaining({ candidates: [1, { email: 5 }] }));
  });
});
