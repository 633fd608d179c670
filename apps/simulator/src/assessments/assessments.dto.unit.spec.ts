import 'reflect-metadata';
import { refused, refusalOf } from '../testing/refusal.js';
import { validatedBody } from '../validation/validated-body.js';
import { AddTestBody, testToAdd } from './assessments.dto.js';

describe('AddTestBody', () => {
  it('types a slug; whether it names a custom test of the workspace is the command\'s to find', async () => {
    expect(testToAdd(await validatedBody(AddTestBody, { slug: 'ct_1', other: 1 }))).toEqual({ slug: 'ct_1' });
  });

  it.each([[{}], [{ slug: 5 }], [{ slug: null }], [{ slug: ['ct_1'] }]])('refuses %j', async (body) => {
    expect(await refusalOf(validatedBody(AddTestBody, body))).toEqual(refused('slug must be the slug of a custom test of the workspace'));
  });
});
