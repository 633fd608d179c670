import { describe, expect, it } from '@jest/globals';
import { esdbConnectionString, isSystemEvent, toAppendExpectedRevision, toRecordedEvent, type EsdbRecordedEvent } from './esdb-mapping.js';

const metadata = { correlationId: 'c', causationId: null, actor: 'system', requestId: 'r', time: '2024-01-01T00:00:00.000Z' };
const recorded: EsdbRecordedEvent = {
  id: 'e1',
  streamId: 'candidate-1',
  revision: 3n,
  type: 'CandidateCreated',
  isJson: true,
  data: { candidateId: '1' },
  metadata,
  created: new Date('2024-01-02T03:04:05.678Z'),
  position: { commit: 1234n, prepare: 1234n },
};

describe('EventStoreDB mapping', () => {
  it('accepts kurrentdb:// URLs by rewriting them to the esdb:// scheme the client knows', () => {
    expect(esdbConnectionString('kurrentdb://admin:changeit@db:2113?tls=false')).toBe('esdb://admin:changeit@db:2113?tls=false');
    expect(esdbConnectionString('kurrentdb+discover://db:2113')).toBe('esdb+discover://db:2113');
    expect(esdbConnectionString('esdb://db:2113')).toBe('esdb://db:2113');
  });

  it('treats $-prefixed types and streams as system events', () => {
    expect(isSystemEvent({ type: '$metadata', streamId: 'candidate-1' })).toBe(true);
    expect(isSystemEvent({ type: 'SomethingHappened', streamId: '$stats-127.0.0.1:2113' })).toBe(true);
    expect(isSystemEvent({ type: 'CandidateCreated', streamId: 'candidate-1' })).toBe(false);
  });

  it('maps expected revisions', () => {
    expect([toAppendExpectedRevision('any'), toAppendExpectedRevision('no_stream'), toAppendExpectedRevision(4)]).toEqual(['any', 'no_stream', 4n]);
  });

  it('maps a recorded event, and rejects events the port cannot represent', () => {
    expect(toRecordedEvent(recorded)).toEqual({
      id: 'e1', streamId: 'candidate-1', revision: 3, position: 1234n, type: 'CandidateCreated',
      data: { candidateId: '1' }, metadata, recordedAt: '2024-01-02T03:04:05.678Z',
    });
    expect(toRecordedEvent({ ...recorded, position: undefined })?.position).toBe(-1n);
    expect(toRecordedEvent({ ...recorded, isJson: false, data: new Uint8Array([1]) })).toBeNull();
    expect(toRecordedEvent({ ...recorded, metadata: undefined })).toBeNull();
  });
});
