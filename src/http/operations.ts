// The operator's routes of svc serve, answered before the rate limit and every other route: GET /readyz (200 only
// when every project's database answers and is migrated, else 503 with why) and, when metrics.enabled, GET /metrics
// (Prometheus text; with metrics.token set, only for `Authorization: Bearer <token>`). /healthz, the process's
// liveness, is the server's own (http-server.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerChallenge, bearerToken, sendJson, type HttpHandler } from './io.js';

export interface OperationsOptions {
  /** Whether every project can serve now, and why not. */
  ready(): Promise<{ ready: boolean; problems: { project: string; error: string }[] }>;
  /** null: metrics are off (/metrics is not a route). */
  metrics: {
    /** null: no token needed. */
    token: string | null;
    render(): Promise<{ contentType: string; body: string }>;
  } | null;
}

/** Whether `given` is `wanted`, in a time that does not tell how much of it matched. */
function sameSecret(given: string, wanted: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(wanted));
}

export function createOperationsHandler(opts: OperationsOptions): HttpHandler {
  return async (req, res, url) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (url.pathname === '/readyz') {
      const r = await opts.ready();
      sendJson(res, r.ready ? 200 : 503, r.ready ? { status: 'ready' } : { status: 'not_ready', problems: r.problems });
      return true;
    }
    if (url.pathname !== '/metrics' || !opts.metrics) return false;
    const { token, render } = opts.metrics;
    if (token !== null) {
      const given = bearerToken(req);
      if (!given || !sameSecret(given, token)) {
        sendJson(
          res,
          401,
          {
            error: {
              code: 'unauthorized',
              message: 'metrics.token is set: send the header "Authorization: Bearer <metrics.token>"',
            },
          },
          bearerChallenge(given !== null),
        );
        return true;
      }
    }
    const { contentType, body } = await render();
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
