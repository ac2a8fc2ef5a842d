// The fetcher's error taxonomy: every way a request can fail (a transport error, a time limit, an address the
// policy refused, an abort) named as one failure kind with a short detail, so a link's outcome says why it failed.
import type { FailureKind } from './classify.js';
import { AbortError } from './host-limiter.js';

/** The address policy refused every address a name resolved to. */
export class BlockedError extends Error {
  readonly code = 'SVC_ADDRESS_BLOCKED';
}

export class TimeoutError extends Error {
  readonly code = 'SVC_TIMEOUT';
}

/** The system error code of a transport error (undici wraps some: in `errors` or `cause`). */
export function errorCode(err: unknown): string {
  const e = err as { code?: string; errors?: { code?: string }[]; cause?: { code?: string } } | null;
  return e?.code ?? e?.errors?.find((x) => x?.code)?.code ?? e?.cause?.code ?? '';
}

/** Maps a transport error to a failure kind with a short detail. */
export function describeError(err: unknown, timeoutMs: number): { failure: FailureKind; detail: string } {
  const e = err as {
    code?: string;
    message?: string;
    errors?: { code?: string }[];
    cause?: { code?: string; message?: string };
  };
  if (err instanceof TimeoutError) return { failure: 'timeout', detail: `no complete answer within ${timeoutMs} ms` };
  if (err instanceof BlockedError) return { failure: 'blocked', detail: err.message };
  if (err instanceof AbortError) return { failure: 'aborted', detail: '' };
  const code = errorCode(err);
  switch (code) {
    case 'ECONNREFUSED':
      return { failure: 'refused', detail: '' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return { failure: 'dns', detail: '' };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return { failure: 'timeout', detail: `no complete answer within ${timeoutMs} ms` };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return { failure: 'reset', detail: '' };
    case 'EHOSTUNREACH':
      return { failure: 'network', detail: 'host unreachable' };
    case 'ENETUNREACH':
      return { failure: 'network', detail: 'network unreachable' };
    default:
      if (
        /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code) ||
        /certificate|TLS|SSL/i.test(e?.message ?? '')
      ) {
        return { failure: 'tls', detail: code || (e?.message ?? '') };
      }
      if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code.startsWith('ERR__'))
        return { failure: 'network', detail: 'the body could not be decoded' };
      return { failure: 'network', detail: code || (e?.message ?? String(err)).slice(0, 200) };
  }
}
