export const TEST_TYPES = [
  'aptitude',
  'personality',
  'soft-skills',
  'software',
  'programming',
  'typing',
  'language',
  'role-specific',
] as const;
export type CatalogueTestType = (typeof TEST_TYPES)[number];

export const TEST_FORMATS = ['multiple-choice', 'code', 'essay', 'video', 'typing'] as const;
export type TestFormat = (typeof TEST_FORMATS)[number];

/** One test in the library catalogue. */
export interface CatalogueTest {
  slug: string;
  name: string;
  type: CatalogueTestType;
  format: TestFormat;
  minutes: number;
  timed: boolean;
  questionCount: number;
  description: string;
}
