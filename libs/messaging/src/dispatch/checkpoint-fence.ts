/** Where the leases of the loops that must run once live (libs/runtime/src/lease.ts), beside the checkpoints. */
export const LEASES_TABLE = 'service_leases';

/** The holding a leased loop writes under: refused once another process holds the lease. */
export interface CheckpointFence {
  lease: string;
  holder: string;
  fence: string;
}

/** A checkpoint write refused because the lease it was made under is no longer held (another process took over). */
export class FencedOutError extends Error {
  constructor(readonly fence: CheckpointFence) {
    super(`the lease ${fence.lease} (fence ${fence.fence}) is no longer held by this process`);
    this.name = 'FencedOutError';
  }
}

/** SQL true only while the holding is current; `$n` placeholders for lease, holder and fence. */
export const fenceHolds = (lease: string, holder: string, fence: string): string =>
  `EXISTS (SELECT 1 FROM public.${LEASES_TABLE} WHERE name = ${lease} AND holder = ${holder} AND fence = ${fence}::bigint)`;
