import { catchError } from '../testing/catch-error.js';
import { parseEnum, parseOptionalString } from './params.js';

describe('parseEnum', () => {
  const statuses = ['active', 'archived'] as const;

  it('answers undefined when absent and the value when allowed', () => {
    expect(parseEnum(undefined, 'status', statuses)).toBeUndefined();
    expect(parseEnum('archived', 'status', statuses)).toBe('archived');
  });

  it.each([['closed'], ['ACTIVE'], [''], [' active'], [['active', 'archived']], [['active']], [1]])(
    'refuses %j naming the parameter',
    (value) => {
      const error = catchError(() => parseEnum(value, 'status', statuses));
      expect(error).toMatchObject({ status: 400, code: 'invalid_parameter' });
      expect((error as Error).message).toContain('status');
    },
  );
});

describe('parseOptionalString', () => {
  it('answers undefined when absent and the text otherwise', () => {
    expect(parseOptionalString(undefined, 'email')).toBeUndefined();
    expect(parseOptionalString('Ann@Example.com', 'email')).toBe('Ann@Example.com');
    expect(parseOptionalString('', 'email')).toBe('');
  });

  it.each([[['a', 'b']], [{ a: '1' }], [5], [null]])('refuses %j', (value) => {
    const error = catchError(() => parseOptionalString(value, 'assessment'));
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect((error as Error).message).toContain('assessment');
  });
});
