import { describe, expect, it } from '@jest/globals';
import { toEventData, toRecordedEvent, type EsdbRecordedEvent } from './esdb-mapping.js';

const metadata = { correlationId: 'c', causationId: null, actor: 'system', requestId: 'r', time: '2024-01-01T00:00:00.000Z' };
const integrity = { recordedAt: '2024-01-02T00:00:00.123Z', hash: 'ab'.repeat(32) };

/** EventStoreDB has no column of ours: the recorded time and the chain's hash ride in the metadata and come back out. */
describe('EventStoreDB mapping of the integrity stamp', () => {
  it('writes the stamp into the metadata and reads it back as recordedAt and hash, the metadata as given', () => {
    const written = toEventData({ id: '8a1f1b36-2d7c-4b59-9f6e-1a0c7f7f0e11', type: 'Happened', data: { a: 1 }, metadata, integrity });
    expect(written.metadata).toEqual({ ...metadata, $integrity: integrity });
    const stored: EsdbRecordedEvent = {
      id: 'e1', streamId: 's', revision: 0n, type: 'Happened', isJson: true, data: { a: 1 }, metadata: written.metadata,
      created: new Date('2024-01-02T00:00:01.000Z'), position: { commit: 10n, prepare: 10n },
    };
    expect(toRecordedEvent(stored)).toMatchObject({ metadata, recordedAt: integrity.recordedAt, hash: integrity.hash });
    expect(toRecordedEvent(stored)?.metadata).toEqual(metadata);
  });

  it('falls back to the server time, with no hash, for events written without a stamp', () => {
    const written = toEventData({ id: '8a1f1b36-2d7c-4b59-9f6e-1a0c7f7f0e12', type: 'Happened', data: {}, metadata });
    expect(written.metadata).toEqual(metadata);
    const read = toRecordedEvent({ id: 'e2', streamId: 's', revision: 0n, type: 'Happened', isJson: true, data: {}, metadata, created: new Date('2024-01-02T00:00:01.000Z') });
    expect(read).toMatchObject({ recordedAt: '2024-01-02T00:00:01.000Z', hash: undefined });
  });
});
