import { CATALOGUE } from './catalogue.data.js';
import { TEST_FORMATS, TEST_TYPES } from './catalogue.types.js';

describe('the library catalogue (catalogue.json)', () => {
  it('holds 48 tests, six of each type, with unique slugs', () => {
    expect(CATALOGUE).toHaveLength(48);
    expect(new Set(CATALOGUE.map((test) => test.slug)).size).toBe(48);
    for (const type of TEST_TYPES) expect(CATALOGUE.filter((test) => test.type === type)).toHaveLength(6);
  });

  it('gives every test a known type and format and a whole, positive length and question count', () => {
    for (const test of CATALOGUE) {
      expect(TEST_TYPES).toContain(test.type);
      expect(TEST_FORMATS).toContain(test.format);
      expect(Number.isInteger(test.minutes) && test.minutes > 0).toBe(true);
      expect(Number.isInteger(test.questionCount) && test.questionCount > 0).toBe(true);
      expect(typeof test.timed).toBe('boolean');
      expect(test.name.length > 0 && test.description.length > 0).toBe(true);
    }
  });
});
