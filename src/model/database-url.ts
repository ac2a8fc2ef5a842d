// database_url: the PostgreSQL server the store lives on when it is set. Its password must never reach a log line,
// an error or a message, so everything shown of it goes through describeDatabaseUrl. Parsed by hand, as libpq
// reads it: postgres://user@/db?host=/run/socket (a unix socket) has no host, which WHATWG's URL refuses.

const URL_RE = /^(postgres|postgresql):\/\/(?:([^:@/?#]*)(?::([^@/?#]*))?@)?([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?$/;

interface Parts {
  user: string;
  password: string;
  host: string;
  port: string;
  database: string;
}

function parts(url: string): Parts | null {
  const m = URL_RE.exec(url);
  if (!m) return null;
  const dec = (s: string | undefined) => {
    try {
      return decodeURIComponent(s ?? '');
    } catch {
      return s ?? '';
    }
  };
  const query = new URLSearchParams(m[6] ?? '');
  // host[:port]; an IPv6 address is in brackets.
  const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(m[4] ?? '') ?? [];
  return {
    user: dec(m[2]),
    password: m[3] ?? '',
    host: dec(hp[1]) || query.get('host') || 'localhost',
    port: hp[2] || query.get('port') || '5432',
    database: dec(m[5]),
  };
}

/** Why `url` is not a PostgreSQL connection URL, or null when it is one (the message never repeats the URL). */
export function databaseUrlProblem(url: string): string | null {
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    return `must be a postgres:// or postgresql:// URL${scheme ? ` (got a ${scheme}: one)` : ', like postgres://user:password@host:5432/database'}`;
  }
  if (!parts(url)) return 'must be a URL like postgres://user:password@host:5432/database';
  return null;
}

/** The URL as messages show it: postgres://user@host:port/database — no password, no query. */
export function describeDatabaseUrl(url: string): string {
  const p = parts(url);
  if (!p) return 'postgres://(an unreadable URL)';
  return `postgres://${p.user ? `${p.user}@` : ''}${p.host}:${p.port}/${p.database || p.user || 'postgres'}`;
}

/** `text` with the URL, and its password wherever it stands alone, replaced (for driver messages that might echo them). */
export function withoutPassword(text: string, url: string): string {
  let out = text.split(url).join(describeDatabaseUrl(url));
  const pw = parts(url)?.password ?? '';
  if (!pw) return out;
  let decoded = pw;
  try {
    decoded = decodeURIComponent(pw);
  } catch {
    // kept as written
  }
  for (const p of new Set([pw, decoded])) if (p) out = out.split(p).join('***');
  return out;
}
