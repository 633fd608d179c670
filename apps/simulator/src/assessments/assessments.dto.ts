import { ApiProperty } from '@nestjs/swagger';
import { Rule } from '../validation/body-rules.js';

/** What AddTestToAssessment is given; whether the slug names a custom test of the workspace is the command's to find. */
export type TestToAdd = { slug: string };

export class AddTestBody {
  @ApiProperty({ type: 'string', description: 'A custom test of the workspace' })
  @Rule('slug', (value) => typeof value === 'string', 'slug must be the slug of a custom test of the workspace')
  slug!: string;
}

export const testToAdd = (body: AddTestBody): TestToAdd => ({ slug: body.slug });
