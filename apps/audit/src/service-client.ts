import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import type { RecordedEvent, LogSeal } from '#event-store';

/** The running service's internal routes, with the internal token: how the CLI works beside an embedded service. */
export class ServiceClient {
  constructor(private readonly baseUrl: string, private readonly token: string) {}

  async exportLines(opened = false): Promise<AsyncIterable<string>> {
    const response = await this.request('GET', `/internal/audit/export${opened ? '?view=opened' : ''}`);
    if (response.body === null) throw new Error('the service sent an empty export');
    return createInterface({ input: Readable.fromWeb(response.body), crlfDelay: Infinity });
  }

  async seal(method: 'GET' | 'POST'): Promise<LogSeal | null> {
    const response = await this.request(method, '/internal/audit/seal', true);
    return response.status === 404 ? null : ((await response.json()) as { data: LogSeal }).data;
  }

  async stream(streamId: string): Promise<RecordedEvent[]> {
    const response = await this.request('GET', `/internal/streams/${encodeURIComponent(streamId)}`, true);
    if (response.status === 404) return [];
    const { data } = (await response.json()) as { data: (Omit<RecordedEvent, 'position'> & { position: string })[] };
    return data.map((event) => ({ ...event, position: BigInt(event.position) }));
  }

  private async request(method: string, path: string, allowNotFound = false): Promise<Response> {
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${this.token}` } });
    if (!response.ok && !(allowNotFound && response.status === 404)) throw new Error(`${method} ${path}: the service answered ${response.status}`);
    return response;
  }
}
