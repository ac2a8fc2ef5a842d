// The embedded default: what `svc serve` (and `npm start`) does with no config at all. It serves the bundled
// demo site on loopback, points one target at it, loads its posts, makes the demo users and an API key, runs
// one full crawl, and tells the newcomer — once, on stderr, and in <data_dir>/credentials.json — how to use it.
// A second start reuses the data dir: the same credentials, the same demo port when it is free, no re-crawl.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { App } from '../app/open-app.js';
import { randomBytes } from 'node:crypto';
import { createApiKey, verifyApiKey } from '../auth/keys.js';
import { removePagesOfHost } from '../store/pages.js';
import { makePrivateDir } from '../store/private-files.js';
import { addUser, getUser, resetUserToken, userByToken } from '../auth/users.js';
import { TargetSchema, withTargetDefaults, type Config, type TargetConfig } from '../model/config.js';
import type { Role } from '../model/users.js';
import type { Logger } from '../lib/log.js';
import { demoPostsFile, packageRoot } from './content.js';
import { DemoSiteError, startDemoSite, type DemoSite } from './site.js';
import { importPosts } from '../store/posts.js';

/** The demo's users: one who may do everything, one who may only read. */
export const DEMO_USERS: readonly { login: string; role: Role }[] = [
  { login: 'admin', role: 'administrator' },
  { login: 'reader', role: 'subscriber' },
];

/** First choice of port for the demo site (svc serve itself defaults to 8787); any free port otherwise. */
export const DEMO_SITE_PREFERRED_PORT = 8788;

/**
 * The demo targets. The association's site: walk_links is on so the crawl finds the pages the sitemap leaves out
 * (listings, the endless events calendar, the faults), and max_pages stops the calendar, so some links stay
 * `unknown`. The federation's site on the second loopback host is a target too: loopback addresses are only
 * fetched for configured targets, so this is what lets the link to its missing page be checked for real.
 */
export function demoTargets(site: Pick<DemoSite, 'host' | 'partnerOrigin'>): TargetConfig[] {
  return [
    TargetSchema.parse({
      host: site.host,
      scheme: 'http',
      track_links: 'all',
      walk_links: true,
      max_pages: 100,
      concurrency: 4,
      request_timeout_ms: 5000,
      content_selector: 'main',
      tags: ['demo'],
    }),
    TargetSchema.parse({
      host: new URL(site.partnerOrigin).host,
      scheme: 'http',
      track_links: 'all',
      max_pages: 20,
      request_timeout_ms: 5000,
      tags: ['demo', 'federation'],
    }),
  ];
}

export const CredentialsSchema = z.object({
  mcp_url: z.string(),
  base_url: z.string(),
  public_token: z.string(),
  api_key: z.string(),
  // password: for the OAuth sign-in page (absent in files of older versions: a new one is made).
  users: z.array(z.object({ login: z.string(), role: z.string(), token: z.string(), password: z.string().optional() })),
});
export type Credentials = z.infer<typeof CredentialsSchema>;

const StateSchema = z.object({
  site_port: z.number().int().min(1).max(65535),
  partner_port: z.number().int().min(1).max(65535),
});
type DemoState = z.infer<typeof StateSchema>;

export const CREDENTIALS_FILE = 'credentials.json';
const STATE_FILE = 'demo-site.json';

/** True when nothing says which site to serve: no --config, SVC_CONFIG, --site or remote /v1 service. */
export function isEmbeddedDefault(
  values: { config?: unknown; site?: unknown },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return values.config === undefined && values.site === undefined && !env.SVC_CONFIG && !env.SVC_BASE_URL;
}

function readJson<T>(path: string, schema: z.ZodType<T>): T | null {
  if (!existsSync(path)) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Written to a temporary file first, so a reader never sees half a file; mode 0600 for secrets. */
function writeFileAtomic(path: string, text: string, mode: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

export function readCredentials(dataDir: string): Credentials | null {
  return readJson(join(dataDir, CREDENTIALS_FILE), CredentialsSchema);
}

async function startSite(state: DemoState | null, firstPort: number, logger: Logger): Promise<DemoSite> {
  const wanted = { port: state?.site_port ?? firstPort, partnerPort: state?.partner_port ?? 0 };
  // The ports of the last run may still be held for a moment by a process that is just exiting.
  for (let attempt = 0; attempt < (state ? 6 : 1); attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 300));
    try {
      return await startDemoSite(wanted);
    } catch (err) {
      if (!(err instanceof DemoSiteError) || err.code !== 'EADDRINUSE') throw err;
    }
  }
  const site = await startDemoSite({ port: 0, partnerPort: 0 });
  if (state)
    logger.warn(
      { wanted: state.site_port, port: site.port },
      'the demo site ports of the last run are taken: serving it on new ports and crawling it again',
    );
  return site;
}

export interface EmbeddedDefault {
  site: DemoSite;
  /** The config it runs with (the caller's defaults plus the demo target). */
  config: Config;
  /** Loads posts, makes or re-finds the users (tokens, passwords) and the API key. Call after loadApp. */
  prepare(app: App): Promise<Credentials>;
  /** Writes credentials.json, starts the first crawl if needed and prints the banner. Call once listening. */
  announce(app: App, baseUrl: string, out?: { write(text: string): unknown }): Promise<Credentials>;
  close(): Promise<void>;
}

export interface EmbeddedDefaultOptions {
  /** Port to try for the demo site on a first start (default 8788; 0 = any free port). */
  firstPort?: number;
}

/** Starts the demo site and returns the config that targets it. `config` is the defaults (with env overrides). */
export async function startEmbeddedDefault(
  config: Config,
  logger: Logger,
  opts: EmbeddedDefaultOptions = {},
): Promise<EmbeddedDefault> {
  const dataDir = resolve(config.data_dir);
  makePrivateDir(dataDir);
  const statePath = join(dataDir, STATE_FILE);
  const state = readJson(statePath, StateSchema);
  const site = await startSite(state, opts.firstPort ?? DEMO_SITE_PREFERRED_PORT, logger);
  const sameSite = state?.site_port === site.port && state.partner_port === site.partnerPort;
  writeFileAtomic(
    statePath,
    JSON.stringify({ site_port: site.port, partner_port: site.partnerPort }, null, 2) + '\n',
    0o644,
  );
  const demoConfig: Config = withTargetDefaults({ ...config, targets: demoTargets(site) });
  let creds: Credentials | null = null;

  return {
    site,
    config: demoConfig,

    async prepare(app) {
      // The demo moved to other ports, so its old hosts are no targets any more: drop their pages (crawl ids
      // start at 1, so "not seen by crawl 0" is every one of them) before the new crawl fills the index.
      for (const [was, now] of [
        [state?.site_port, site.port],
        [state?.partner_port, site.partnerPort],
      ]) {
        if (!was || was === now) continue;
        const removed = await removePagesOfHost(app.store.sql, `127.0.0.1:${was}`);
        app.logger.info({ removed, old_port: was }, 'pages of the demo site on an old port removed');
      }
      await importPosts(
        app.store.sql,
        site.posts.map((d) => d.post),
      );
      const saved = readCredentials(dataDir);
      const project = app.config.project.public_token;
      const users = [];
      for (const { login, role } of DEMO_USERS) {
        const was = saved?.users.find((u) => u.login === login);
        // A user whose token or password we no longer have gets a new one; a missing user is made.
        const token =
          was?.token && (await userByToken(app.store.sql, was.token))?.login === login
            ? was.token
            : (await getUser(app.store.sql, login))
              ? await resetUserToken(app.store.sql, login)
              : await addUser(app.store.sql, login, role);
        let password = was?.password;
        if (!password || !(await app.passwords.verify(app.store.sql, login, password))) {
          password = randomBytes(12).toString('base64url');
          await app.passwords.set(app.store.sql, login, password);
        }
        users.push({ login, role, token, password });
      }
      const apiKey =
        saved?.api_key && (await verifyApiKey(app.store.sql, saved.api_key))?.project === project
          ? saved.api_key
          : (await createApiKey(app.store.sql, project, 'demo')).key;
      creds = { mcp_url: '', base_url: '', public_token: project, api_key: apiKey, users };
      return creds;
    },

    async announce(app, baseUrl, out = process.stderr) {
      if (!creds) throw new Error('announce() before prepare()');
      creds = { ...creds, mcp_url: `${baseUrl}/mcp`, base_url: baseUrl };
      const credPath = join(dataDir, CREDENTIALS_FILE);
      writeFileAtomic(credPath, JSON.stringify(creds, null, 2) + '\n', 0o600);
      // For the other commands (`svc report --config …`, `svc mcp --config …`): the same data and target.
      const configPath = join(dataDir, 'demo-config.json');
      const listening = { ...app.config.server, port: Number(new URL(baseUrl).port) || app.config.server.port };
      const { projects: _single, ...demoConfig } = app.config;
      writeFileAtomic(
        configPath,
        JSON.stringify({ ...demoConfig, data_dir: dataDir, server: listening }, null, 2) + '\n',
        0o644,
      );
      writeFileAtomic(join(dataDir, 'demo-posts.json'), demoPostsFile(site.origin), 0o644);

      let crawlLine: string;
      let lastFull: string | null = null;
      try {
        lastFull = (await app.backend.linkReport({ limit: 1 })).lastFullCrawl;
      } catch (err) {
        app.logger.debug({ err: (err as Error).message }, 'no link report yet');
      }
      if (sameSite && lastFull) {
        crawlLine = `reusing the full crawl that completed ${lastFull} (no new crawl; start one with the svc-full-crawl tool)`;
      } else {
        try {
          const rec = await app.backend.startCrawl({ mode: 'full' });
          crawlLine = `full crawl #${rec.id} started: the link report fills in within seconds`;
        } catch (err) {
          crawlLine = `the first crawl could not start: ${(err as Error).message}`;
          app.logger.error({ err: (err as Error).message }, 'demo site crawl could not start');
        }
      }
      out.write(banner({ creds, site, credPath, configPath, crawlLine }));
      return creds;
    },

    close: () => site.close(),
  };
}

function banner(o: {
  creds: Credentials;
  site: DemoSite;
  credPath: string;
  configPath: string;
  crawlLine: string;
}): string {
  const { creds, site } = o;
  const admin = creds.users.find((u) => u.role === 'administrator')!;
  const w = Math.max(...creds.users.map((u) => `${u.login} (${u.role})`.length));
  const users = creds.users.map(
    (u, i) =>
      `${i === 0 ? '  users        ' : '               '}${`${u.login} (${u.role})`.padEnd(w)}  ${u.token}  password ${u.password ?? '-'}`,
  );
  const mcpJson = JSON.stringify(
    {
      mcpServers: {
        svc: { type: 'http', url: creds.mcp_url, headers: { Authorization: `Bearer ${admin.token}` } },
        'svc-stdio': {
          command: process.execPath,
          args: [join(packageRoot(), 'dist', 'src', 'server.js'), 'mcp', '--config', o.configPath],
          env: { SVC_USER: admin.login },
        },
      },
    },
    null,
    2,
  );
  return [
    '',
    'svc is running on the bundled demo site. Everything below is also in',
    `  ${o.credPath} (mode 0600)`,
    '',
    `  demo site    ${site.origin}/  (and a second loopback host: ${site.partnerOrigin}/)`,
    `  console      ${creds.base_url}/console/  (sign in with a login and password below)`,
    `  MCP (HTTP)   ${creds.mcp_url}`,
    `  /v1 API      ${creds.base_url}/v1/projects/${creds.public_token}/`,
    `  API key      ${creds.api_key}`,
    ...users,
    `  crawl        ${o.crawlLine}`,
    '',
    'Link report (REST):',
    `  curl -s -H 'Authorization: Bearer ${creds.api_key}' '${creds.base_url}/v1/projects/${creds.public_token}/link-report?limit=50'`,
    '',
    'mcp.json for an assistant (as admin; HTTP while this runs, or stdio on the same data):',
    ...mcpJson.split('\n').map((l) => `  ${l}`),
    '',
    'Agents that sign in with OAuth (svc is the authorization server of /mcp) use a login and password above',
    `on the sign-in page; the server's metadata: ${creds.base_url}/.well-known/oauth-protected-resource/mcp`,
    '',
    `Other commands reach the same data with --config ${o.configPath}`,
    '',
  ].join('\n');
}
