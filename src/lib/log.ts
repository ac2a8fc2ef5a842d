// Structured logs on stderr: stdout belongs to the MCP stdio transport and to printed results.
import { pino, type Logger } from 'pino';

export type { Logger };

/** Where log lines go when not straight to stderr: each call gets one JSON line (ending in a newline). */
export interface LogSink {
  write(line: string): void;
}

export function createLogger(level: string, sink?: LogSink): Logger {
  return pino(
    {
      level,
      base: { svc: 'svc' },
      // Never let a secret reach a log line, whatever object a caller passes.
      redact: {
        paths: [
          'api_key',
          'apiKey',
          'token',
          'authorization',
          '*.authorization',
          '*.api_key',
          '*.token',
          'headers.authorization',
        ],
        censor: '[redacted]',
      },
    },
    sink ?? pino.destination({ fd: 2, sync: true }),
  );
}

/** A logger that writes nothing, for tests and library use. */
export const silentLogger: Logger = pino({ level: 'silent' });

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
// Fields every line has (or that say nothing to a person reading a terminal).
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'svc', 'msg']);

/**
 * One pino JSON line as a short line for a person at a terminal: "12:03:04 INFO  crawl ended crawl=3 pages=120".
 * A line that is not JSON comes back as it was, so nothing is ever lost.
 */
export function prettyLogLine(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.replace(/\n$/, '');
  }
  if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) return json.replace(/\n$/, '');
  const time = typeof rec.time === 'number' ? new Date(rec.time).toTimeString().slice(0, 8) : '';
  const level = (typeof rec.level === 'number' ? LEVEL_NAMES[rec.level] : undefined) ?? String(rec.level ?? '');
  const fields = Object.entries(rec)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`);
  return [time, level.padEnd(5), typeof rec.msg === 'string' ? rec.msg : '', ...fields]
    .filter((s) => s !== '')
    .join(' ');
}
