import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { MAX_CANDIDATES_PER_REQUEST, MAX_NAME_LENGTH } from '#domain';

/** Documents one entry; entries are judged one by one by the decider (a bad one is a `failed` entry). */
export class InvitationCandidate {
  @ApiProperty({ type: 'string', description: 'E-mail address; trimmed and lower-cased', example: 'ann.lee@example.com' })
  email!: string;

  @ApiPropertyOptional({ type: 'string', maxLength: MAX_NAME_LENGTH, example: 'Ann' })
  firstName?: string;

  @ApiPropertyOptional({ type: 'string', maxLength: MAX_NAME_LENGTH, example: 'Lee' })
  surname?: string;
}

const CANDIDATES_RULE = 'candidates must be a non-empty list';

/** POST …/invitations: a missing, empty or non-list `candidates` is 422 validation_failed, too long too_many_candidates. */
export class InviteCandidatesBody {
  @ApiProperty({ type: [InvitationCandidate], minItems: 1, maxItems: MAX_CANDIDATES_PER_REQUEST, description: 'People to invite, judged one by one, in order' })
  @IsArray({ message: CANDIDATES_RULE })
  @ArrayMinSize(1, { message: CANDIDATES_RULE })
  @ArrayMaxSize(MAX_CANDIDATES_PER_REQUEST, {
    message: `at most ${MAX_CANDIDATES_PER_REQUEST} candidates per request`,
    context: { code: 'too_many_candidates' },
  })
  candidates!: unknown[];
}
