// Reads the config (file, env, --site) and turns every bad field into one line naming the field and the rule.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatZodIssues } from '../lib/zod-issues.js';
import { ConfigSchema, projectsOf, type Config } from '../model/config.js';
import { webhookUrlProblem } from '../backend/webhooks/address.js';

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    readonly source: string,
  ) {
    super(`invalid config (${source}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function parseConfig(raw: unknown, source = 'config'): Config {
  // Parsed once per process: zod's compiled fast path for objects costs more to build than this one parse saves.
  const parsed = ConfigSchema.safeParse(raw, { jitless: true });
  if (!parsed.success) throw new ConfigError(formatZodIssues(parsed.error), source);
  const c = parsed.data;
  const hooks = projectsOf(c).flatMap((p, pi) =>
    p.webhooks.flatMap((h, i) => {
      const why = webhookUrlProblem(h);
      return why ? [`${c.projects ? `projects[${pi}].` : ''}webhooks[${i}].url: ${why}`] : [];
    }),
  );
  if (hooks.length) throw new ConfigError(hooks, source);
  return parsed.data;
}

export interface LoadOptions {
  /** --config, else SVC_CONFIG. */
  configPath?: string;
  /** --site URL: one target, that URL's host, defaults otherwise. */
  site?: string;
  env?: NodeJS.ProcessEnv;
}

/** Config from a file, `--site`, or nothing (all defaults); env overrides come last. */
export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const path = opts.configPath ?? env.SVC_CONFIG;
  let raw: Record<string, unknown> = {};
  let source = 'defaults';
  if (path) {
    source = resolve(path);
    let text: string;
    try {
      text = readFileSync(source, 'utf8');
    } catch (err) {
      throw new ConfigError([`cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`], source);
    }
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError([`not valid JSON: ${(err as Error).message}`], source);
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      throw new ConfigError(['(root): must be a JSON object'], source);
  }
  if (opts.site) {
    let url: URL;
    try {
      url = new URL(opts.site);
    } catch {
      throw new ConfigError([`--site: "${opts.site}" is not a full URL (e.g. https://example.org/)`], '--site');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigError(['--site: must be an http or https URL'], '--site');
    if (raw.projects !== undefined)
      throw new ConfigError(
        [
          '--site: cannot be used with a config that lists "projects" (each project has its own targets there); pick one with --project',
        ],
        `${source} + --site`,
      );
    const startPath = url.pathname || '/';
    raw = {
      ...raw,
      targets: [{ host: url.host, scheme: url.protocol.slice(0, -1), start_paths: [startPath], track_links: 'all' }],
    };
    source = source === 'defaults' ? '--site' : `${source} + --site`;
  }
  if (env.SVC_DATA_DIR) raw = { ...raw, data_dir: env.SVC_DATA_DIR };
  if (env.SVC_DATABASE_URL) raw = { ...raw, database_url: env.SVC_DATABASE_URL };
  const api = { ...((raw.api as Record<string, unknown> | undefined) ?? {}) };
  if (env.SVC_BASE_URL) api.base_url = env.SVC_BASE_URL;
  if (env.SVC_API_KEY) api.api_key = env.SVC_API_KEY;
  if (env.SVC_PUBLIC_TOKEN) api.public_token = env.SVC_PUBLIC_TOKEN;
  if (Object.keys(api).length) raw = { ...raw, api };
  const server = { ...((raw.server as Record<string, unknown> | undefined) ?? {}) };
  if (env.PORT) server.port = Number(env.PORT);
  if (env.HOST) server.host = env.HOST;
  if (env.SVC_PUBLIC_URL) server.public_url = env.SVC_PUBLIC_URL;
  if (env.SVC_MCP_AUTH) server.mcp_auth = env.SVC_MCP_AUTH;
  if (Object.keys(server).length) raw = { ...raw, server };
  if (env.SVC_LOG_LEVEL) raw = { ...raw, log_level: env.SVC_LOG_LEVEL };
  return parseConfig(raw, source);
}
