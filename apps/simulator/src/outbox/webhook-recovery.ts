import { validationFailed } from '#domain';
import { apiError, formatTime, parseIsoTime } from '#http';
import type { Messaging, RecoveryResult, RecoveryWindow } from '#messaging';
import { feedCutoff, getWorkspace } from '#read-models';
import type { Infrastructure } from '#runtime/infrastructure.js';

const TIME_RULE = 'a date (YYYY-MM-DD) or an ISO 8601 date-time with Z or an offset';

const timeOf = (value: unknown, name: string): Date => {
  const parsed = typeof value === 'string' ? parseIsoTime(value.trim()) : null;
  if (!parsed) throw validationFailed(`${name} must be ${TIME_RULE}`);
  return parsed;
};

/**
 * The window of a webhook recovery, from a JSON body or the page's form (an empty field is absent),
 * by the contract's time rules; 422 validation_failed otherwise. `until` defaults to now; `since`
 * may go back as far as the events feed keeps events (30 days of domain time, `feedCutoff`).
 */
export const recoveryWindow = (input: { since?: unknown; until?: unknown }, now: string): RecoveryWindow => {
  if (input.since === undefined) throw validationFailed(`since is required: ${TIME_RULE}`);
  const since = timeOf(input.since, 'since');
  const until = input.until === undefined ? new Date(now) : timeOf(input.until, 'until');
  if (since.getTime() > until.getTime()) throw validationFailed('since must not be after until');
  if (formatTime(since) < feedCutoff(now)) throw validationFailed('since must be at most 30 days before now (domain time): older events are no longer kept');
  return { since: formatTime(since), until: formatTime(until) };
};

export const runningMessaging = (infra: Infrastructure): Messaging => {
  if (!infra.messaging) throw apiError('server_error', 'the messaging side is not running in this process');
  return infra.messaging;
};

/**
 * A webhook recovery as the JSON route and the page both run it: an unknown workspace, or one without
 * a webhook, is refused (404) before a bad window (422), as the other internal routes refuse.
 */
export const recoverWebhook = async (
  infra: Infrastructure, workspaceId: string, input: { since?: unknown; until?: unknown },
): Promise<{ window: RecoveryWindow; recovered: RecoveryResult }> => {
  const messaging = runningMessaging(infra);
  if (!(await getWorkspace(infra.documents, workspaceId))?.webhook) throw apiError('not_found', 'No webhook is saved for this workspace.');
  const window = recoveryWindow(input, await infra.clock.now());
  const recovered = await messaging.recover(workspaceId, window);
  if (!recovered) throw apiError('not_found', 'No webhook is saved for this workspace.');
  return { window, recovered };
};
