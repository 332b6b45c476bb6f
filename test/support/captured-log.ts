// A service logger whose JSON lines are kept for assertions, with a promise for "this many error lines so far"
// (what a test of retry-and-log behaviour waits on, instead of a timer).
import { createLogger, type Logger } from '../../server/src/platform/log';

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export function capturedLogger(): { logger: Logger; lines: LogLine[]; errors: (count: number) => Promise<void> } {
  const lines: LogLine[] = [];
  let waiters: { count: number; resolve: () => void }[] = [];
  const logger = createLogger(
    { logLevel: 'info' },
    {
      write(text: string) {
        lines.push(JSON.parse(text) as LogLine);
        const errors = lines.filter((l) => l.level === 'error').length;
        for (const w of waiters) if (errors >= w.count) w.resolve();
        waiters = waiters.filter((w) => errors < w.count);
      },
    },
  );
  const errors = (count: number) =>
    new Promise<void>((resolve) => {
      if (lines.filter((l) => l.level === 'error').length >= count) resolve();
      else waiters.push({ count, resolve });
    });
  return { logger, lines, errors };
}
