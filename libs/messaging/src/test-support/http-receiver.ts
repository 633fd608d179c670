import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers the n-th request (0-based): a status, optionally after a delay. */
export type Responder = (request: ReceivedRequest, index: number) => { status: number; delayMs?: number };

export interface HttpReceiver {
  url: string;
  requests: ReceivedRequest[];
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real webhook endpoint on 127.0.0.1 and an ephemeral port, recording every request it gets. */
export const startHttpReceiver = async (respond: Responder): Promise<HttpReceiver> => {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = requests.push(request) - 1;
      const { status, delayMs = 0 } = respond(request, index);
      const timer = setTimeout(() => {
        if (!res.destroyed) res.writeHead(status, { 'Content-Type': 'text/plain' }).end('ok');
      }, delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    waitForRequests: async (count, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${requests.length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return requests;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
};
