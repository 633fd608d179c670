import { ApiProperty } from '@nestjs/swagger';
import type { TestToAdd } from '#commands';
import { Rule } from '../validation/body-rules.js';

export class AddTestBody {
  @ApiProperty({ type: 'string', description: 'A custom test of the workspace' })
  @Rule('slug', (value) => typeof value === 'string', 'slug must be the slug of a custom test of the workspace')
  slug!: string;
}

export const testToAdd = (body: AddTestBody): TestToAdd => ({ slug: body.slug });
