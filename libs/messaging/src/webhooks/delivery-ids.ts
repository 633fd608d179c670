import { createHash, randomUUID } from 'node:crypto';

const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The first delivery of an event to an address has an id derived from both, so a dispatcher that
 * runs the same event again (after a crash, or a second process) lands on the same row and job.
 */
export const firstDeliveryId = (eventId: string, url: string): string => `whd_${hash(`${eventId}\n${hash(url)}`).slice(0, 32)}`;

/** A resend is a new delivery on purpose: a fresh id each time. */
export const resendDeliveryId = (): string => `whd_${randomUUID().replaceAll('-', '')}`;

/** A webhook recovery: the rows it makes share it (recovery-log.ts). */
export const newRecoveryId = (): string => `whr_${randomUUID().replaceAll('-', '')}`;
