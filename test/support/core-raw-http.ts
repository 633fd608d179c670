import { connect } from 'node:net';
import type { HttpAnswer } from './client.js';

/**
 * One HTTP/1.1 request written byte for byte on a socket: for header values and request lines that
 * fetch and node:http refuse to send (raw bytes, odd spacing, repeated headers).
 */
export const rawHttp = (
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body = '',
  options: { timeoutMs?: number; headerEncoding?: BufferEncoding } = {},
): Promise<HttpAnswer> => {
  const url = new URL(baseUrl);
  const bodyBytes = Buffer.from(body, 'utf8');
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
  }
  if (method !== 'GET' || bodyBytes.length > 0) lines.push(`Content-Length: ${bodyBytes.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, options.headerEncoding ?? 'utf8');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer to ${method} ${path}`)); }, options.timeoutMs ?? 15_000);
    // Written without ending our side: a half-closed request is dropped by the server as aborted.
    socket.on('connect', () => socket.write(Buffer.concat([head, bodyBytes])));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => { clearTimeout(timer); reject(error); });
    socket.on('close', () => {
      clearTimeout(timer);
      let raw = Buffer.concat(chunks).toString('utf8');
      // Interim answers (100 Continue) come first; the final answer follows.
      while (/^HTTP\/1\.1 1\d\d /.test(raw) && raw.includes('\r\n\r\n')) raw = raw.slice(raw.indexOf('\r\n\r\n') + 4);
      const split = raw.indexOf('\r\n\r\n');
      const headText = split === -1 ? raw : raw.slice(0, split);
      let text = split === -1 ? '' : raw.slice(split + 4);
      const [statusLine = '', ...headerLines] = headText.split('\r\n');
      const status = Number(statusLine.split(' ')[1] ?? 0);
      const answerHeaders = new Headers();
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) answerHeaders.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      if (answerHeaders.get('transfer-encoding')?.toLowerCase() === 'chunked') text = dechunk(text);
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = text;
      }
      resolve({ status, headers: answerHeaders, body: parsed, text });
    });
  });
};

const dechunk = (text: string): string => {
  let out = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd === -1) return out;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
};
