import type { Mode } from './world.js';

export interface Person {
  firstName: string;
  surname: string;
}

/** A personal invitation link a client was handed (status `invited`, or the existing link of `already_invited`). */
export interface InvitationLink {
  token: string;
  url: string;
  workspaceId: string;
  assessmentId: string;
  /** The address as the API answered it (trimmed, lower case). */
  email: string;
  /** Known when the link came from an `invited` entry: the mode of the key and the names sent. */
  mode: Mode | null;
  person: Person | null;
}

export interface KnownCandidate {
  id: string;
  workspaceId: string;
  email: string;
  mode: Mode | null;
  /** The links they registered through: one of them made the candidate, and gave the names. */
  links: Set<string>;
  assessments: Set<string>;
  deleted: boolean;
}

export interface KnownResult {
  resultId: string;
  candidateId: string;
  workspaceId: string;
  assessmentId: string;
  slug: string;
}

/** A write the service acknowledged (2xx), to be found in the log afterwards. */
export type Acknowledged =
  | { kind: 'invited'; workspaceId: string; assessmentId: string; token: string }
  | { kind: 'registered'; workspaceId: string; candidateId: string; assessmentId: string }
  | { kind: 'started'; workspaceId: string; candidateId: string; assessmentId: string }
  | { kind: 'completed'; workspaceId: string; candidateId: string; resultId: string }
  | { kind: 'unlocked'; workspaceId: string; candidateId: string; resultId: string; unlockedAt: string; charged: boolean }
  | { kind: 'deleted'; workspaceId: string; candidateId: string }
  | { kind: 'closed'; workspaceId: string; assessmentId: string };

/** One request with an Idempotency-Key, as sent and as answered. */
export interface IdempotentUse {
  workspaceId: string;
  key: string;
  mode: Mode;
  path: string;
  /** The body as sent; "same body" is the same JSON value. */
  body: unknown;
  addresses: string[];
  startedAt: number;
  finishedAt: number;
  status: number;
  replayed: boolean;
  answer: unknown;
  /** Attempts of this use that a fault cost (faults mode): one of them may have been the original. */
  lostAttempts?: number;
}

export interface Deletion {
  candidateId: string;
  workspaceId: string;
  email: string;
  startedAt: number;
  finishedAt: number;
  status: number;
}

/**
 * What the clients of one workload learned from the answers they got: shared by all clients (they
 * pick their next targets from it) and the record the checks hold the log and the reads against.
 */
export class Knowledge {
  readonly links = new Map<string, InvitationLink>();
  readonly candidates = new Map<string, KnownCandidate>();
  readonly results = new Map<string, KnownResult>();
  readonly acknowledged: Acknowledged[] = [];
  readonly idempotent: IdempotentUse[] = [];
  readonly deletions: Deletion[] = [];
  /** The first body sent with each `workspaceId:key`, so that later uses can replay it. */
  readonly firstBodies = new Map<string, { mode: Mode; assessmentId: string; body: { candidates: unknown[] } }>();
  /**
   * Names sent for an address and assessment by invitation requests whose outcome a client does not
   * know (an attempt lost to a fault): keyed `<assessmentId> <address>`. One of them may have made the
   * invitation a later answer showed only as `already_invited`, so a candidate may rightly carry them.
   */
  readonly unconfirmedPeople = new Map<string, Person[]>();
  /** Writes whose outcome nobody knows (no answer, or 5xx): the log may or may not hold them. */
  unansweredWrites = 0;
  private names = 0;

  /** A first name and surname no other invitation entry of the run uses. */
  person(tag: string): Person {
    this.names += 1;
    return { firstName: `Fn${tag}x${this.names}y`, surname: `Sn${tag}x${this.names}y` };
  }

  rememberLink(link: InvitationLink): void {
    const known = this.links.get(link.token);
    // An `invited` entry knows the mode and names; an `already_invited` one only repeats the link.
    if (known === undefined || (known.person === null && link.person !== null)) this.links.set(link.token, link);
  }

  rememberCandidate(id: string, link: InvitationLink): KnownCandidate {
    const known = this.candidates.get(id) ?? {
      id, workspaceId: link.workspaceId, email: link.email, mode: link.mode, links: new Set<string>(), assessments: new Set<string>(), deleted: false,
    };
    known.links.add(link.token);
    known.assessments.add(link.assessmentId);
    known.mode ??= link.mode;
    this.candidates.set(id, known);
    return known;
  }

  candidatesOf(workspaceId: string): KnownCandidate[] {
    return [...this.candidates.values()].filter((candidate) => candidate.workspaceId === workspaceId);
  }
}

export const tokenOf = (invitationUrl: string): string => invitationUrl.split('/').at(-1) ?? '';
