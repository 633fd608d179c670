import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, Length, ValidateBy } from 'class-validator';
import { MAX_ASSESSMENT_NAME, MAX_TESTS_PER_ASSESSMENT, isCalendarDate, isStorableText } from '#domain';
import { OneOfParam } from '#http';
import { PageQuery } from '../shared/list-params.js';
import { DistinctTextList } from '../shared/list-rules.js';

const NAME_RULE = `name must be a string of 1 to ${MAX_ASSESSMENT_NAME} characters`;
const TESTS_RULE = `tests must be a list of 1 to ${MAX_TESTS_PER_ASSESSMENT} test slugs`;

const StorableText = (message: string) =>
  ValidateBy({ name: 'storableText', validator: { validate: (value: unknown) => typeof value === 'string' && isStorableText(value), defaultMessage: () => message } });

/** POST /v1/assessments. Whether a slug is in the catalogue and the deadline not past are the decider's. */
export class CreateAssessmentBody {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: MAX_ASSESSMENT_NAME, description: 'Shown to candidates and in the app; trimmed', example: 'Backend engineer, autumn intake' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString({ message: NAME_RULE })
  @Length(1, MAX_ASSESSMENT_NAME, { message: NAME_RULE })
  @StorableText(NAME_RULE)
  name!: string;

  @ApiProperty({
    type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_TESTS_PER_ASSESSMENT, uniqueItems: true,
    description: 'Test slugs from GET /v1/tests, in sitting order', example: ['numerical-reasoning', 'verbal-reasoning'],
  })
  @DistinctTextList({ min: 1, max: MAX_TESTS_PER_ASSESSMENT, message: TESTS_RULE, repeatMessage: 'tests must not repeat a slug' })
  tests!: string[];

  @ApiPropertyOptional({
    type: 'string', nullable: true, format: 'date', description: 'Last day candidates may start (YYYY-MM-DD, today or later, UTC); omit or null for none',
    example: '2026-12-31',
  })
  @IsOptional()
  @ValidateBy({
    name: 'calendarDate',
    validator: { validate: (value: unknown) => typeof value === 'string' && isCalendarDate(value), defaultMessage: () => 'deadline must be a date YYYY-MM-DD, today or later, or null' },
  })
  deadline?: string | null;
}

export const ASSESSMENT_STATUSES = ['active', 'archived'] as const;

export class ListAssessmentsQuery extends PageQuery {
  @OneOfParam(ASSESSMENT_STATUSES, 'Only assessments in this status; omit for both')
  status?: (typeof ASSESSMENT_STATUSES)[number];
}
