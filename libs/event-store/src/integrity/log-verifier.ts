import type { RecordedEvent } from '../event-store.port.js';
import { GENESIS_HASH, eventHash, sameHash } from './event-hash.js';
import { GENESIS_LINK, linkHash, type StoredLink } from './log-links.js';
import { EventsDigest, sealSignatureValid, type LogSeal } from './log-seal.js';

export interface IntegrityOptions {
  /** The chain key; null checks only what needs no secret (linkage, seals and their signatures). */
  eventKey: Buffer | null;
  /** The key of the links over the global order; null (or absent) leaves them unchecked. */
  linkKey?: Buffer | null;
  /** The public key seals must carry (the service's own, or the one an auditor kept). */
  trustedPublicKey: string | null;
  /**
   * Seals an auditor kept outside the system (anchors): the log must still hold each one, unchanged,
   * and still hold exactly the events each one sealed, up to its position, whatever the seal table says.
   */
  keptSeals?: LogSeal[];
}

export interface IntegrityReport {
  events: number;
  streams: number;
  seals: number;
  unsealedEvents: number;
  /** Events after the newest link (appended moments ago, or by a log without links yet). */
  unlinkedEvents: number;
  findings: string[];
}

/** What the verifier learns of a kept seal while it reads the log. */
interface Anchor {
  seal: LogSeal;
  digest: EventsDigest;
  link: string | null;
  reached: boolean;
}

const MAX_FINDINGS = 200;

/** Checks chains and seals in one pass over the log in global order, with memory per stream, not per event. Seals first. */
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
  /** Stored links not yet matched with an event, in order (addLinks). */
  private links: StoredLink[] = [];
  private linkIndex = 0;
  /** The link of the last event read, as recomputed (or as stored, after a break was reported). */
  private previousLink = GENESIS_LINK;
  private unlinkedTail = 0;
  private readonly anchors: Anchor[];

  constructor(private readonly options: IntegrityOptions) {
    this.anchors = (options.keptSeals ?? []).map((seal) => ({ seal, digest: new EventsDigest(), link: null, reached: false }));
  }

  /**
   * The stored links up to the events added next, in position order (each call continues the last).
   * A link whose event is not in the log any more is a removal, named by its position.
   */
  addLinks(links: readonly StoredLink[]): void {
    this.links = [...this.links.slice(this.linkIndex), ...links];
    this.linkIndex = 0;
  }

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
    this.reportRemovedBefore(event.position);
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
    this.checkLink(event, where);
    const sealing = this.seals[this.sealIndex];
    if (sealing?.link !== undefined && this.options.linkKey && event.position === BigInt(sealing.toPosition) && !sameHash(sealing.link, this.previousLink)) {
      this.report(`seal ${sealing.sequence}: the log up to position ${sealing.toPosition} is not the log it sealed (its link differs)`);
    }
    for (const anchor of this.anchors) {
      const { afterPosition, toPosition } = anchor.seal;
      if ((afterPosition === null || event.position > BigInt(afterPosition)) && event.position <= BigInt(toPosition)) anchor.digest.add(event);
      if (event.position === BigInt(toPosition)) {
        anchor.reached = true;
        anchor.link = this.previousLink;
      }
    }
    this.events += 1;
  }

  /** Links stored before this position whose events are gone: the first thing to name about a removal. */
  private reportRemovedBefore(position: bigint): void {
    for (let gone = this.links[this.linkIndex]; gone !== undefined && gone.position < position; gone = this.links[this.linkIndex]) {
      this.report(`position ${gone.position}: linked into the log's order, and no longer in the log (an event was removed)`);
      // The links after it were computed over it: go on from its stored link, so only breaks are named.
      this.previousLink = gone.link;
      this.linkIndex += 1;
    }
  }

  /** This event's own link, recomputed from the one before it. */
  private checkLink(event: RecordedEvent, where: string): void {
    const key = this.options.linkKey ?? null;
    const stored = this.links[this.linkIndex]?.position === event.position ? this.links[this.linkIndex]?.link ?? null : null;
    if (stored !== null) this.linkIndex += 1;
    if (stored === null) this.unlinkedTail += 1;
    else this.unlinkedTail = 0;
    if (key === null) return;
    const expected = linkHash(key, this.previousLink, event);
    if (stored !== null && !sameHash(expected, stored)) {
      this.report(`${where}: broken link in the log's order: the events before it are not the ones it was linked after (an event removed, inserted or moved before it)`);
      this.previousLink = stored;
      return;
    }
    this.previousLink = expected;
  }

  finish(): IntegrityReport {
    for (const gone of this.links.slice(this.linkIndex)) {
      this.report(`position ${gone.position}: linked into the log's order, and no longer in the log (the newest events were removed)`);
    }
    this.closeSealsBefore(null);
    this.checkAnchors();
    return { events: this.events, streams: this.heads.size, seals: this.seals.length, unsealedEvents: this.unsealedTail, unlinkedEvents: this.unlinkedTail, findings: this.findings };
  }

  /**
   * Each kept seal against the log itself (its events all there, unchanged, and the chain up to it
   * intact), then against the seal table (the same seal still there).
   */
  private checkAnchors(): void {
    for (const { seal, digest, link, reached } of this.anchors) {
      const where = `kept seal ${seal.sequence} (up to position ${seal.toPosition})`;
      if (!sealSignatureValid(seal)) this.report(`${where}: its signature does not match it (the kept copy was altered)`);
      const trusted = this.options.trustedPublicKey;
      if (trusted !== null && seal.publicKey !== trusted) this.report(`${where}: signed with another key (${seal.publicKey})`);
      const { digest: found, count } = digest.take();
      if (!reached) {
        this.report(`${where}: the log no longer holds the event at position ${seal.toPosition}${this.lastPosition === null || this.lastPosition < BigInt(seal.toPosition) ? ` (it ends at ${this.lastPosition ?? 'nothing'}: the tail was removed)` : ''}`);
      } else if (count !== seal.eventCount || found !== seal.eventsDigest) {
        this.report(`${where}: sealed ${seal.eventCount} events after position ${seal.afterPosition ?? 'the start'}, the log now has ${count} there${count === seal.eventCount ? ' with other contents' : ''}`);
      }
      const key = this.options.linkKey ?? null;
      if (reached && key !== null && seal.link !== undefined && link !== null && !sameHash(link, seal.link)) {
        this.report(`${where}: the log up to it is not the log it sealed (its link differs: events removed, inserted or moved before it)`);
      }
      const stored = this.seals.find((candidate) => candidate.sequence === seal.sequence);
      if (stored === undefined) this.report(`kept seal ${seal.sequence}: not in the log any more`);
      else if (stored.signature !== seal.signature || stored.eventsDigest !== seal.eventsDigest || stored.toPosition !== seal.toPosition) {
        this.report(`kept seal ${seal.sequence}: the log holds a different seal ${seal.sequence} (rewritten)`);
      }
    }
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
