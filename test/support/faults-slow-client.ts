import { connect } from 'node:net';

export interface SlowClientOutcome {
  /** How long the server kept the connection open after our last byte. */
  heldMs: number;
  /** What the server wrote before closing, if anything. */
  answer: string;
}

/**
 * A slowloris client on a raw socket: writes `bytes` (a request cut short: headers only, or headers
 * and part of the body) and then nothing, and measures how long the server keeps the socket open.
 */
export const holdOpen = (baseUrl: string, bytes: string, giveUpMs: number): Promise<SlowClientOutcome> => {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    let sentAt = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ heldMs: Number.POSITIVE_INFINITY, answer });
    }, giveUpMs);
    socket.on('connect', () => socket.write(bytes, () => { sentAt = Date.now(); }));
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('utf8'); });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      if (sentAt === 0) reject(new Error('the connection closed before the request was written'));
      else resolve({ heldMs: Date.now() - sentAt, answer });
    });
  });
};
