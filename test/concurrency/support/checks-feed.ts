import { isDeepStrictEqual } from 'node:util';
import type { ReceivedWebhook } from '../../support/messaging-receivers.js';
import { WEBHOOK_SOURCES } from './checks-side-effects.js';
import type { Findings } from './findings.js';
import type { LogFacts } from './log.js';
import { type Snapshot, snapshotKey } from './snapshot.js';
import { MODES, type WorkspaceWorld } from './world.js';


/** The events of the log the feed no longer lists: those of deleted test candidates, their invitations included. */
const goneEventIds = (facts: LogFacts): Set<string> => {
  const gone = new Set<string>();
  const deletedStreams = new Set([...facts.candidates.values()].filter((candidate) => candidate.deleted).map((candidate) => `candidate-${candidate.id}`));
  for (const event of facts.events) if (deletedStreams.has(event.streamId)) gone.add(event.id);
  for (const invitation of facts.invitations.values()) if (invitation.endedBy !== null) gone.add(invitation.eventId);
  return gone;
};

/**
 * The events feed of each workspace and mode (read to its end after the workload) lists exactly the
 * log's webhook events of that workspace and mode, but the deleted test candidates', in the log's
 * order, and each envelope is the body the webhook delivered for that event.
 */
export const checkFeed = (workspace: WorkspaceWorld, snapshot: Snapshot, facts: LogFacts, received: ReceivedWebhook[], findings: Findings): void => {
  const gone = goneEventIds(facts);
  const delivered = new Map(received.filter((request) => request.body?.workspaceId === workspace.id).map((request) => [request.body.id as string, request.body as unknown]));
  for (const mode of MODES) {
    const read = snapshot.get(snapshotKey(workspace, mode, '/v1/events'));
    if (!findings.expect(read?.status === 200, 'the events feed answers', () => `${workspace.id} ${mode}: ${read?.status}`)) continue;
    const listed = (read?.body.data ?? []) as { id: string; event: string }[];
    const expected = facts.events
      .filter((event) => WEBHOOK_SOURCES.has(event.type) && event.data.workspaceId === workspace.id && event.data.mode === mode && !gone.has(event.id))
      .map((event) => event.id);
    const ids = listed.map((envelope) => envelope.id);
    findings.expect(isDeepStrictEqual(ids, expected), 'the events feed lists the log\'s events, in its order, but a deleted person\'s', () => {
      const missing = expected.filter((id) => !ids.includes(id));
      const extra = ids.filter((id) => !expected.includes(id));
      return `${workspace.id} ${mode}: ${ids.length} listed, ${expected.length} expected; missing ${missing.slice(0, 3).join(', ') || 'none'}, `
        + `not expected ${extra.slice(0, 3).join(', ') || 'none'}${missing.length === 0 && extra.length === 0 ? ', out of order' : ''}`;
    });
    for (const envelope of listed) {
      const body = delivered.get(envelope.id);
      findings.expect(body === undefined || isDeepStrictEqual(envelope, body), 'the feed\'s envelope is the body its webhook delivered', () =>
        `${workspace.id} ${mode}: ${envelope.event} ${envelope.id} differs from its delivery`);
    }
  }
};
