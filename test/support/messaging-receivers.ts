import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/* ------------------------------------------------------------------ webhooks */

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received (the signature covers these bytes). */
  raw: string;
  body: any;
  receivedAt: number;
  /** Status the receiver wrote back (null until then; a written answer may still never reach a client that died). */
  answered: number | null;
}

/** How the receiver answers the n-th request (0-based): a status, optionally after a delay. */
export type WebhookResponder = (request: ReceivedWebhook, index: number) => { status: number; delayMs?: number };

export interface WebhookReceiver {
  url: string;
  port: number;
  requests: ReceivedWebhook[];
  /** Replaces the answering rule (e.g. to stop failing). */
  respond: WebhookResponder;
  waitFor(predicate: (requests: ReceivedWebhook[]) => boolean, timeoutMs?: number, what?: string): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A real webhook endpoint on 127.0.0.1 and an ephemeral port, recording every request it gets. */
export const startWebhookReceiver = async (respond: WebhookResponder = () => ({ status: 200 }), port = 0): Promise<WebhookReceiver> => {
  const requests: ReceivedWebhook[] = [];
  const receiver = { respond } as WebhookReceiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      const request: ReceivedWebhook = { headers: req.headers, raw, body, receivedAt: Date.now(), answered: null };
      const index = requests.push(request) - 1;
      const { status, delayMs = 0 } = receiver.respond(request, index);
      const answer = (): void => {
        if (res.destroyed) return;
        request.answered = status;
        res.writeHead(status, { 'Content-Type': 'text/plain' }).end('ok');
      };
      if (delayMs <= 0) {
        answer();
        return;
      }
      const timer = setTimeout(answer, delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${bound}/hooks`;
  receiver.port = bound;
  receiver.requests = requests;
  receiver.waitFor = async (predicate, timeoutMs = 15_000, what = 'webhook requests') => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(requests)) {
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${what}; received ${requests.length}: ${JSON.stringify(requests.map((r) => r.body?.event ?? r.raw.slice(0, 80)))}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return requests;
  };
  receiver.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return receiver;
};

export const hmacHex = (secret: string, timestamp: string, raw: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.${raw}`).digest('hex');

/** `t=<ts>,v1=<hex>[,v1=<hex>]` split into its parts; throws on anything else. */
export const parseSignature = (header: string | string[] | undefined): { t: string; v1: string[] } => {
  if (typeof header !== 'string') throw new Error(`X-Webhook-Signature missing or repeated: ${String(header)}`);
  const match = /^t=(\d+)((?:,v1=[0-9a-f]{64})+)$/.exec(header);
  if (!match) throw new Error(`malformed X-Webhook-Signature: ${header}`);
  return { t: match[1] as string, v1: (match[2] as string).slice(1).split(',').map((part) => part.slice(3)) };
};

/* ------------------------------------------------------------------ polling */

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `accept` holds; returns the last value read. */
export const eventually = async <T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000, what = 'condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last, null, 1).slice(0, 4000)}`);
    await sleep(50);
    last = await read();
  }
  return last;
};

/* ------------------------------------------------------------------ SMTP */

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpReceiver {
  url: string;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 and an ephemeral port (no TLS, no authentication needed). */
export const startSmtpReceiver = async (): Promise<SmtpReceiver> => {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

/* ------------------------------------------------------------------ a small MIME reader */

export interface MimePart {
  headers: Record<string, string>;
  /** Decoded body (transfer encoding undone). */
  body: string;
}

const splitHeaders = (text: string): { headers: Record<string, string>; body: string } => {
  const normalized = text.replace(/\r\n/g, '\n');
  const end = normalized.indexOf('\n\n');
  const head = end === -1 ? normalized : normalized.slice(0, end);
  const body = end === -1 ? '' : normalized.slice(end + 2);
  const headers: Record<string, string> = {};
  let current = '';
  for (const line of head.split('\n')) {
    if (/^[ \t]/.test(line) && current) headers[current] += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      current = line.slice(0, colon).trim().toLowerCase();
      headers[current] = line.slice(colon + 1).trim();
    }
  }
  return { headers, body };
};

const decodeQuotedPrintable = (text: string): string => {
  const bytes: number[] = [];
  const joined = text.replace(/=\n/g, '');
  for (let i = 0; i < joined.length; i += 1) {
    const char = joined[i] as string;
    if (char === '=' && /^[0-9A-Fa-f]{2}$/.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(char, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
};

const decodeBody = (headers: Record<string, string>, body: string): string => {
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
};

/** Decodes an RFC 2047 encoded-word header (subject). */
export const decodeHeader = (value: string): string =>
  value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=\s*/g, (_all, _charset: string, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQuotedPrintable(text.replace(/_/g, ' ')));

/** The leaf parts of a message (multipart/* walked recursively). */
export const mimeParts = (raw: string): { headers: Record<string, string>; parts: MimePart[] } => {
  const top = splitHeaders(raw);
  const walk = (headers: Record<string, string>, body: string): MimePart[] => {
    const type = headers['content-type'] ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (!/^multipart\//i.test(type) || !boundary) return [{ headers, body: decodeBody(headers, body) }];
    const sections = body.split(`--${boundary}`).slice(1);
    return sections
      .filter((section) => !section.startsWith('--'))
      .flatMap((section) => {
        const part = splitHeaders(section.replace(/^\n/, ''));
        return walk(part.headers, part.body);
      });
  };
  return { headers: top.headers, parts: walk(top.headers, top.body) };
};
