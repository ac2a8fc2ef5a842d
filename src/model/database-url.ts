// database_url: the PostgreSQL server the store lives on when it is set. Its password must never reach a log line,
// an error or a message, so everything shown of it goes through describeDatabaseUrl.

/** Why `url` is not a PostgreSQL connection URL, or null when it is one (the message never repeats the URL). */
export function databaseUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be a URL like postgres://user:password@host:5432/database';
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return `must be a postgres:// or postgresql:// URL (got a ${u.protocol}// one)`;
  return null;
}

/**
 * The URL as messages show it: postgres://user@host:port/database, no password and no query (a unix socket's
 * directory, given as ?host=…, is shown in place of the host).
 */
export function describeDatabaseUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'postgres://(an unreadable URL)';
  }
  const host = u.hostname || u.searchParams.get('host') || 'localhost';
  const port = u.port || u.searchParams.get('port') || '5432';
  const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
  const db = u.pathname.replace(/^\//, '') || (u.username ? decodeURIComponent(u.username) : 'postgres');
  return `postgres://${user}${host}:${port}/${db}`;
}

/** Every occurrence of the URL's password in `text` replaced (for driver messages that might echo it). */
export function withoutPassword(text: string, url: string): string {
  let pw = '';
  try {
    pw = new URL(url).password;
  } catch {
    return text;
  }
  if (!pw) return text;
  let out = text;
  for (const p of new Set([pw, decodeURIComponent(pw)])) if (p) out = out.split(p).join('***');
  return out.split(url).join(describeDatabaseUrl(url));
}
