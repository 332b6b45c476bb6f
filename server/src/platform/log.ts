// Structured JSON logs (pino). One root logger per process; each HTTP request logs through a child that carries
// `requestId` (platform/http/request-id.ts), so every line written while serving a request names it.
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

/** Header names whose values never reach a log line. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]', // API_KEY_HEADER (contract/http-headers), as Node keys it
  'req.headers.cookie',
  'req.headers["payment-signature"]',
  'req.headers["x-payment"]',
];

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'sigil' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
