import { DisableWebhook, DisableWebhookHandler, systemContext } from '#commands';
import type { ServiceConfig } from '#platform';
import { servedFeedWindow } from '#read-models';
import { type Messaging, startMessagingSide } from '#messaging';
import type { Infrastructure } from './infrastructure.js';
import { PersonalDataErasure } from './personal-data-erasure.js';
import { FOLLOWERS_LEASE, LeaseObserver } from './lease.js';

/**
 * Where personal data may sit in Redis: the queues (under the tagged prefix and, for jobs left by
 * releases before it, the untagged one) and the idempotency records (both key forms start `idem:`).
 */
export const redisPrefixesToScrub = (config: Pick<ServiceConfig, 'queuePrefix' | 'legacyQueuePrefix'>): string[] =>
  [`${config.queuePrefix}:`, ...(config.legacyQueuePrefix === null ? [] : [`${config.legacyQueuePrefix}:`]), 'idem:'];

/**
 * Starts the messaging side (libs/messaging builds its parts: startMessagingSide) with the ports
 * that belong to other layers: disabling an address is a command, recovery reads the events feed,
 * the erasure reaches every store, the lease says whether a dispatcher runs somewhere.
 */
export const startMessagingFor = async (infra: Infrastructure, options: { runWorkers: boolean; dispatcherUnderLease?: boolean }): Promise<Messaging> => {
  const disable = new DisableWebhookHandler(infra.writer);
  const followersLease = new LeaseObserver(infra.sidePool, FOLLOWERS_LEASE);
  const { messaging, waiter } = await startMessagingSide({
    eventStore: infra.eventStore, pool: infra.sidePool, redis: infra.redis, clock: infra.clock, secretBox: infra.secretBox,
    prefix: infra.config.queuePrefix, legacyPrefix: infra.config.legacyQueuePrefix ?? undefined,
    appUrl: infra.config.appUrl, smtpUrl: infra.config.smtpUrl, allowInsecure: infra.config.webhookAllowInsecure,
    backoffMs: infra.config.webhookBackoffMs, webhookConcurrency: infra.config.webhookConcurrency ?? undefined,
    disableWebhook: (workspaceId, url, reason) => disable.execute(new DisableWebhook(workspaceId, url, reason, systemContext(`webhook-${reason}`))),
    feedWindow: (query) => servedFeedWindow(infra.documents, query, infra.config.appUrl),
    logger: infra.logger.child({ component: 'messaging' }),
    runWorkers: options.runWorkers, inline: infra.inline, database: infra.database, redisHealth: infra.redisHealth,
    dispatcherUnderLease: options.dispatcherUnderLease === true,
    erasure: ({ outbox, log }) => new PersonalDataErasure({
      logStore: infra.audit.logStore, documents: infra.documents, outbox, deliveries: log, redis: infra.redis,
      personKeys: infra.audit.personKeys, redisPrefixes: redisPrefixesToScrub(infra.config), logger: infra.logger.child({ component: 'erasure' }),
    }),
    followersLeaseHeld: () => followersLease.isHeld(),
  });
  infra.messaging = messaging;
  infra.readSide.add(waiter);
  return messaging;
};
