// The demo site's servers (node:http, loopback only): the association's site, and a second loopback host (the
// federation's site) that it links to. Every answer comes from the pure routers in routes.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { pageMetaOfPost } from '../cms/posts.js';
import { demoPosts, type DemoPost } from './content.js';
import { createDemoRouter, createPartnerRouter, type DemoResponse } from './routes.js';

export interface DemoSiteOptions {
  /** A loopback address (default 127.0.0.1). */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Port of the partner site on the same address; 0 (default) picks a free port. */
  partnerPort?: number;
}

export interface DemoSite {
  /** e.g. http://127.0.0.1:8788 */
  origin: string;
  /** host:port, as a crawl target names it. */
  host: string;
  port: number;
  partnerOrigin: string;
  partnerPort: number;
  /** The posts as served at `origin`, in the posts-file format (plus body and demo extras). */
  posts: DemoPost[];
  close(): Promise<void>;
}

/** Loopback only: the demo site is for this machine, and for a crawler that may fetch it. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

export class DemoSiteError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'DemoSiteError';
  }
}

function serve(route: () => (path: string) => DemoResponse): Server {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('method not allowed\n');
      return;
    }
    let path = '/';
    try {
      path = new URL(req.url ?? '/', 'http://demo').pathname;
    } catch {
      // An unparsable request target gets the 404 page.
    }
    const r = route()(path);
    const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
    res.writeHead(r.status, { ...r.headers, 'content-length': body.length, 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  server.keepAliveTimeout = 5_000;
  return server;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) =>
      reject(new DemoSiteError(`demo site: cannot listen on ${host}:${port}: ${err.code ?? err.message}`, err.code));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startDemoSite(opts: DemoSiteOptions = {}): Promise<DemoSite> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopbackHost(host))
    throw new DemoSiteError(`--host: "${host}" is not a loopback address (use 127.0.0.1, ::1 or localhost)`);
  const hostPart = host.includes(':') ? `[${host}]` : host;
  let mainRoute: ((path: string) => DemoResponse) | null = null;
  let partnerRoute: ((path: string) => DemoResponse) | null = null;
  const notReady = (): DemoResponse => ({ status: 503, headers: { 'retry-after': '1' }, body: '' });
  const main = serve(() => mainRoute ?? notReady);
  const partner = serve(() => partnerRoute ?? notReady);
  let port: number;
  let partnerPort: number;
  try {
    port = await listen(main, opts.port ?? 0, host);
    partnerPort = await listen(partner, opts.partnerPort ?? 0, host);
  } catch (err) {
    await Promise.all([close(main), close(partner)]);
    throw err;
  }
  const origin = `http://${hostPart}:${port}`;
  const partnerOrigin = `http://${hostPart}:${partnerPort}`;
  const posts = demoPosts(origin);
  mainRoute = createDemoRouter({ origin, partnerOrigin, posts, pageMetaOf: pageMetaOfPost });
  partnerRoute = createPartnerRouter(origin);
  return {
    origin,
    host: `${hostPart}:${port}`,
    port,
    partnerOrigin,
    partnerPort,
    posts,
    close: async () => {
      await Promise.all([close(main), close(partner)]);
    },
  };
}
