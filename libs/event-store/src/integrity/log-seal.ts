import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '#platform';

/**
 * A signed statement over a stretch of the global order: "these are all the events after position
 * `afterPosition` up to `toPosition`, and this was the previous seal". Signed with Ed25519, so that
 * anyone holding the public key (printed with every seal) can check a seal and an export without the
 * service secret; only the holder of the secret can make one.
 */
export interface LogSeal {
  sequence: number;
  /** Exclusive; null for the first seal. Decimal strings, as positions are everywhere in JSON. */
  afterPosition: string | null;
  toPosition: string;
  eventCount: number;
  /** SHA-256 over every sealed event's position, stream, revision and hash, in global order. */
  eventsDigest: string;
  previousSignature: string | null;
  /**
   * The link of the event at `toPosition` in the chain over the global order (log-links.ts): it
   * vouches for every event from the first up to there. Absent in seals made before the links.
   */
  link?: string;
  sealedAt: string;
  publicKey: string;
  signature: string;
}

export type UnsignedSeal = Omit<LogSeal, 'signature' | 'publicKey'>;

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export class SealSigner {
  private readonly privateKey: KeyObject;
  readonly publicKey: string;

  /** `seed`: 32 bytes derived from the service secret, so every process of one service signs alike. */
  constructor(seed: Buffer) {
    this.privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
    const spki = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' });
    this.publicKey = spki.subarray(SPKI_ED25519_PREFIX.length).toString('base64url');
  }

  sign(seal: UnsignedSeal): LogSeal {
    const withKey = { ...seal, publicKey: this.publicKey };
    return { ...withKey, signature: sign(null, Buffer.from(canonicalJson(withKey)), this.privateKey).toString('base64url') };
  }
}

export const sealSignatureValid = (seal: LogSeal): boolean => {
  try {
    const { signature, ...signed } = seal;
    const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(seal.publicKey, 'base64url')]), format: 'der', type: 'spki' });
    return verify(null, Buffer.from(canonicalJson(signed)), key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
};

/** The running digest a seal commits to; the sealer and the verifier feed it the same lines. */
export class EventsDigest {
  private hash = createHash('sha256');
  count = 0;

  add(event: { position: bigint; streamId: string; revision: number; hash?: string }): void {
    this.hash.update(`${canonicalJson([event.position.toString(), event.streamId, event.revision, event.hash ?? null])}\n`);
    this.count += 1;
  }

  /** The digest so far, and a fresh start for the next seal. */
  take(): { digest: string; count: number } {
    const result = { digest: this.hash.digest('hex'), count: this.count };
    this.hash = createHash('sha256');
    this.count = 0;
    return result;
  }
}
