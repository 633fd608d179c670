import { pino, type Logger } from 'pino';

/** Structured logs; credentials and secrets are redacted wherever they appear. */
export const createLogger = (level = process.env.LOG_LEVEL || 'info', name = 'hiring-test'): Logger =>
  pino({
    name,
    level,
    redact: {
      paths: [
        'req.headers.authorization', 'headers.authorization', 'authorization', 'secret', '*.secret', 'secretHash', '*.secretHash',
        'encryptedSecret', '*.encryptedSecret', 'internalToken', 'password',
      ],
      censor: '[redacted]',
    },
  });

export type { Logger };
