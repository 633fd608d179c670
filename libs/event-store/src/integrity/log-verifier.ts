import type { RecordedEvent } from '../event-store.port.js';
import { GENESIS_HASH, eventHash, sameHash } from './event-hash.js';
import { EventsDigest, sealSignatureValid, type LogSeal } from './log-seal.js';

export interface IntegrityOptions {
  /** The chain key; null checks only what needs no secret (linkage, seals and their signatures). */
  eventKey: Buffer | null;
  /** The public key seals must carry (the service's own, or the one an auditor kept). */
  trustedPublicKey: string | null;
  /** Seals an auditor kept outside the system: the log must still hold each one, unchanged. */
  keptSeals?: LogSeal[];
}

export interface IntegrityReport {
  events: number;
  streams: number;
  seals: number;
  unsealedEvents: number;
  findings: string[];
}

const MAX_FINDINGS = 200;

/**
 * Checks the hash chains and the seals in one pass over the log in global order, with memory per
 * stream (its last revision and hash), not per event. Seals first, then events.
 */
export class LogVerifier {
  private readonly heads = new Map<string, { revision: number; hash: string }>();
  private readonly seals: LogSeal[] = [];
  private readonly digest = new EventsDigest();
  private readonly findings: string[] = [];
  private sealIndex = 0;
  private lastPosition: bigint | null = null;
  private events = 0;
  /** Events after the last seal: not yet sealed, so only their chains vouch for them. */
  private unsealedTail = 0;

  constructor(private readonly options: IntegrityOptions) {}

  addSeal(seal: LogSeal): void {
    const previous = this.seals.at(-1) ?? null;
    const where = `seal ${seal.sequence}`;
    if (seal.sequence !== (previous?.sequence ?? 0) + 1) this.report(`${where}: sequence follows ${previous?.sequence ?? 'nothing'} (a seal is missing)`);
    if (seal.afterPosition !== (previous?.toPosition ?? null) || seal.previousSignature !== (previous?.signature ?? null)) {
      this.report(`${where}: does not continue seal ${previous?.sequence ?? '(none)'}`);
    }
    if (!sealSignatureValid(seal)) this.report(`${where}: the signature does not match the seal`);
    const trusted = this.options.trustedPublicKey;
    if (trusted !== null && seal.publicKey !== trusted) this.report(`${where}: signed with another key (${seal.publicKey})`);
    this.seals.push(seal);
  }

  add(event: RecordedEvent): void {
    this.closeSealsBefore(event.position);
    const where = `${event.streamId} revision ${event.revision} (position ${event.position})`;
    if (this.lastPosition !== null && event.position <= this.lastPosition) this.report(`${where}: position does not increase after ${this.lastPosition}`);
    this.lastPosition = event.position;
    const head = this.heads.get(event.streamId);
    const expectedRevision = head === undefined ? 0 : head.revision + 1;
    if (event.revision !== expectedRevision) this.report(`${where}: revision ${expectedRevision} was expected here (an event was removed, reordered or inserted)`);
    if (event.hash === undefined) {
      this.report(`${where}: has no hash (not recorded through the service)`);
    } else if (this.options.eventKey !== null) {
      const expected = eventHash(this.options.eventKey, head?.hash ?? GENESIS_HASH, event);
      if (!sameHash(expected, event.hash)) this.report(`${where}: broken link: the hash does not match the event and the one before it`);
    }
    this.heads.set(event.streamId, { revision: event.revision, hash: event.hash ?? GENESIS_HASH });
    if (this.sealIndex < this.seals.length) this.digest.add(event);
    this.events += 1;
  }

  finish(): IntegrityReport {
    this.closeSealsBefore(null);
    for (const kept of this.options.keptSeals ?? []) {
      const stored = this.seals.find((seal) => seal.sequence === kept.sequence);
      if (stored === undefined) this.report(`kept seal ${kept.sequence}: not in the log any more`);
      else if (stored.signature !== kept.signature || stored.eventsDigest !== kept.eventsDigest || stored.toPosition !== kept.toPosition) {
        this.report(`kept seal ${kept.sequence}: the log holds a different seal ${kept.sequence} (rewritten)`);
      }
    }
    return { events: this.events, streams: this.heads.size, seals: this.seals.length, unsealedEvents: this.unsealedTail, findings: this.findings };
  }

  /** Closes every seal that ends before `position` (all remaining ones when null). */
  private closeSealsBefore(position: bigint | null): void {
    for (;;) {
      const seal = this.seals[this.sealIndex];
      if (seal === undefined) {
        if (position !== null) this.unsealedTail += 1;
        return;
      }
      if (position !== null && position <= BigInt(seal.toPosition)) return;
      const { digest, count } = this.digest.take();
      if (count !== seal.eventCount || digest !== seal.eventsDigest) {
        this.report(`seal ${seal.sequence} (positions after ${seal.afterPosition ?? 'the start'} up to ${seal.toPosition}): sealed ${seal.eventCount} events, the log now has ${count} there${count === seal.eventCount ? ' with other contents' : ''} (events removed, inserted or rewritten)`);
      }
      this.sealIndex += 1;
    }
  }

  private report(finding: string): void {
    if (this.findings.length < MAX_FINDINGS) this.findings.push(finding);
  }
}
