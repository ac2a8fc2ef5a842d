// DNS-rebinding guard for the local HTTP endpoints (MCP transport security): a page on evil.example can make
// a browser send requests to 127.0.0.1 under its own name, so the Host and Origin headers must name us.
// Loopback names (127.0.0.1, localhost, [::1], any port) are always accepted: no foreign page can send them.
// allowed_hosts ("name" = any port, "name:port" = that port) and allowed_origins ("scheme://name[:port]")
// add the names a proxy or a remote deployment uses.

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface OriginGuardOptions {
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
}

/** Returns null when the request may pass, else the reason (for a 403). */
export type OriginGuard = (host: string | undefined, origin: string | undefined) => string | null;

/** Hostname and the port as written (null when none) of a Host header value; null when it does not parse. */
function parseAuthority(value: string): { hostname: string; port: string | null } | null {
  if (!value || /[\s/?#@\\]/.test(value)) return null;
  try {
    const hostname = new URL(`http://${value}`).hostname.toLowerCase();
    // URL drops a scheme's default port (":80"); keep the port as written so rules compare what clients send.
    return { hostname, port: /:(\d{1,5})$/.exec(value)?.[1] ?? null };
  } catch {
    return null;
  }
}

function normalizeOrigin(value: string): string | null {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return u.origin.toLowerCase();
  } catch {
    return null;
  }
}

export function createOriginGuard(opts: OriginGuardOptions = {}): OriginGuard {
  const hostRules = (opts.allowedHosts ?? []).map((h) => {
    const a = parseAuthority(h.trim());
    if (!a) throw new Error(`server.allowed_hosts: "${h}" is not a host name or host:port`);
    return a; // port null: every port of that name
  });
  const origins = new Set(
    (opts.allowedOrigins ?? []).map((o) => {
      const n = normalizeOrigin(o.trim());
      if (!n) throw new Error(`server.allowed_origins: "${o}" is not an origin like https://app.example.org`);
      return n;
    }),
  );

  const hostAllowed = (hostname: string, port: string | null) =>
    LOOPBACK.has(hostname) || hostRules.some((r) => r.hostname === hostname && (r.port === null || r.port === port));

  return (host, origin) => {
    if (host === undefined || host === '') return 'missing Host header';
    const a = parseAuthority(host);
    if (!a || !hostAllowed(a.hostname, a.port)) return `Host header not allowed: ${host}`;
    // Non-browser clients send no Origin; a browser always does on a cross-origin POST.
    if (origin === undefined) return null;
    const o = normalizeOrigin(origin);
    if (!o) return `Origin header not allowed: ${origin}`;
    if (origins.has(o)) return null;
    const oa = parseAuthority(new URL(o).host);
    if (oa && LOOPBACK.has(oa.hostname)) return null;
    return `Origin header not allowed: ${origin}`;
  };
}
