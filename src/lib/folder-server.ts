// A built site's folder served on loopback as a web server would serve it, so `svc links DIR` checks the folder
// with the crawler it uses for live sites: index files for directories, `x.html` for an extensionless `x`, 404 for
// what is missing, and validators (ETag, Last-Modified) so a repeat run revalidates instead of fetching again.
import { createReadStream, type Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.xhtml': 'application/xhtml+xml',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.zip': 'application/zip',
};

const INDEX_FILES = ['index.html', 'index.htm'];

/** Whether the folder holds an HTML file (at any depth); false for one that does not exist or is no folder. */
export async function folderHasHtml(root: string): Promise<boolean> {
  try {
    const entries = await readdir(root, { recursive: true });
    return entries.some((e) => /\.x?html?$/i.test(e));
  } catch {
    return false;
  }
}

async function fileAt(path: string): Promise<Stats | null> {
  try {
    const s = await stat(path);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

/** What a request path is answered with: a file, a redirect to the directory's own URL, or nothing. */
export async function resolveFolderPath(
  root: string,
  urlPath: string,
): Promise<{ file: string; stats: Stats } | { redirect: string } | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const path = resolve(root, `.${decoded}`);
  // Nothing above the folder (`..` in any spelling ends up outside it once resolved).
  if (path !== root && !path.startsWith(root + sep)) return null;
  let s: Stats | null = null;
  try {
    s = await stat(path);
  } catch {
    s = null;
  }
  if (s?.isDirectory()) {
    // Relative links of an index page resolve against the directory's URL, so it must end with '/'.
    if (!urlPath.endsWith('/')) return { redirect: `${urlPath}/` };
    for (const name of INDEX_FILES) {
      const stats = await fileAt(join(path, name));
      if (stats) return { file: join(path, name), stats };
    }
    return null;
  }
  if (s?.isFile()) return { file: path, stats: s };
  // An extensionless link names the page as most static hosts serve it.
  if (!extname(path) && !urlPath.endsWith('/')) {
    const stats = await fileAt(`${path}.html`);
    if (stats) return { file: `${path}.html`, stats };
  }
  return null;
}

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

async function handle(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return answer(res, 405, 'method not allowed', { allow: 'GET, HEAD' });
  const url = new URL(req.url ?? '/', 'http://folder');
  const found = await resolveFolderPath(root, url.pathname);
  if (!found) return answer(res, 404, '<!doctype html><title>404 Not Found</title><h1>404 Not Found</h1>');
  if ('redirect' in found) return answer(res, 301, '', { location: `${found.redirect}${url.search}` });
  const { file, stats } = found;
  const etag = `"${stats.size.toString(36)}-${Math.floor(stats.mtimeMs).toString(36)}"`;
  const lastModified = stats.mtime.toUTCString();
  const headers = {
    'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    etag,
    'last-modified': lastModified,
  };
  const since = req.headers['if-modified-since'];
  if (
    req.headers['if-none-match'] === etag ||
    (!req.headers['if-none-match'] && since && Date.parse(since) >= Math.floor(stats.mtimeMs / 1000) * 1000)
  ) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, 'content-length': stats.size });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}

export interface FolderServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** Serves root on 127.0.0.1: on `port` when it is free (a repeat run keeps its URLs), else on any free port. */
export async function serveFolder(root: string, port = 0): Promise<FolderServer> {
  const dir = resolve(root);
  const server: Server = createServer((req, res) => {
    handle(dir, req, res).catch(() => {
      if (!res.headersSent) answer(res, 500, 'the file could not be read');
      else res.destroy();
    });
  });
  const listen = (p: number) =>
    new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', fail);
        ok();
      });
    });
  try {
    await listen(port);
  } catch (err) {
    if (port === 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    await listen(0);
  }
  const bound = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
