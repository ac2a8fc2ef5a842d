// Structured logs on stderr: stdout belongs to the MCP stdio transport and to printed results.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { svc: 'svc' },
      // Never let a secret reach a log line, whatever object a caller passes.
      redact: { paths: ['api_key', 'apiKey', 'token', 'authorization', '*.authorization', '*.api_key', '*.token', 'headers.authorization'], censor: '[redacted]' },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}

/** A logger that writes nothing, for tests and library use. */
export const silentLogger: Logger = pino({ level: 'silent' });
