import 'reflect-metadata';
import { refused, refusalOf } from '../testing/refusal.js';
import { validatedBody } from '../validation/validated-body.js';
import { AdvanceClockBody } from './clock.dto.js';

describe('AdvanceClockBody', () => {
  it('takes a whole number of seconds from 1 to ten years', async () => {
    expect((await validatedBody(AdvanceClockBody, { advanceSeconds: 86_400 })).advanceSeconds).toBe(86_400);
    expect((await validatedBody(AdvanceClockBody, { advanceSeconds: 315_360_000 })).advanceSeconds).toBe(315_360_000);
  });

  it.each([[{}], [{ advanceSeconds: 0 }], [{ advanceSeconds: -5 }], [{ advanceSeconds: 1.5 }], [{ advanceSeconds: '60' }], [{ advanceSeconds: 315_360_001 }]])('refuses %j', async (body) => {
    expect(await refusalOf(validatedBody(AdvanceClockBody, body))).toEqual(refused('advanceSeconds must be a whole number from 1 to 315360000'));
  });
});
