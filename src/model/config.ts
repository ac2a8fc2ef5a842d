// The one config file (snake_case, like the target settings), validated with zod.
import { parse as parseSelector } from 'css-what';
import { z } from 'zod';
import { cronExpression } from './schedule.js';
import { STANDARD_SECRET_MIN_BYTES, WEBHOOK_EVENTS, webhookSigningKey } from './webhooks.js';
import { databaseUrlProblem } from './database-url.js';
import { RateLimitsSchema } from './rate-limits.js';
import { AcceptSchema, RemapSchema, RetriesSchema } from './link-rules.js';
import { SEARCH_STATS_RETENTION_DEFAULT, SEARCH_STATS_RETENTION_MAX } from './search-stats.js';

/** host or host:port, no scheme, no path. */
const HOST_RE = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::\d{1,5})?$/;
/** <id>:<region>, e.g. demo1234:eu-north-1 */
export const PUBLIC_TOKEN_RE = /^[A-Za-z0-9_-]{1,64}:[a-z0-9-]{1,32}$/;

const regexString = z.string().refine(
  (s) => {
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be a valid regular expression' },
);

const cssSelector = z
  .string()
  .min(1)
  .superRefine((s, ctx) => {
    try {
      parseSelector(s);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `must be a valid CSS selector (${(err as Error).message})` });
    }
  });

const RETENTION_RULE = `must be a whole number of days from 0 to ${SEARCH_STATS_RETENTION_MAX} (0: record no search)`;

/** How long an external link's ok result is reused when none is given. */
export const DEFAULT_EXTERNAL_CACHE_MAX_AGE = '1d';

const DURATION_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30m", "12h", "1d", "2w", "90s" or "0" → milliseconds; null when it is not such a duration. */
export function parseDuration(s: string): number | null {
  const m = /^\s*(\d{1,9})\s*([smhdw])?\s*$/.exec(s);
  if (!m) return null;
  const n = Number(m[1]);
  if (!m[2]) return n === 0 ? 0 : null;
  return n * DURATION_UNITS_MS[m[2]]!;
}

const duration = z.string().refine((s) => parseDuration(s) !== null, {
  message: 'must be a duration like "30m", "12h", "1d" or "2w" (or "0" for none)',
});

export const TargetSchema = z
  .object({
    host: z
      .string()
      .regex(HOST_RE, 'must be a host name or host:port, without scheme or path')
      .transform((h) => h.toLowerCase()),
    scheme: z.enum(['http', 'https']).default('https'),
    start_paths: z.array(z.string().startsWith('/', 'must start with /')).min(1).default(['/']),
    use_sitemap: z.boolean().default(true),
    /** Unset: on when no sitemap is found. */
    walk_links: z.boolean().optional(),
    walk_query_strings: z.boolean().default(true),
    deny_patterns: z.array(regexString).default([]),
    max_pages: z.number().int().min(1).max(10_000_000).default(10_000),
    track_links: z.enum(['pdf', 'all']).default('pdf'),
    respect_robots_txt: z.boolean().default(true),
    respect_robots_meta: z.boolean().default(true),
    concurrency: z.number().int().min(1).max(64).default(5),
    crawl_delay_ms: z.number().int().min(0).max(60_000).default(0),
    request_timeout_ms: z.number().int().min(100).max(300_000).default(10_000),
    request_headers: z.record(z.string(), z.string()).default({}),
    content_selector: cssSelector.optional(),
    title_selector: cssSelector.optional(),
    tags: z.array(z.string().min(1)).default([]),
    skip_link_patterns: z.array(regexString).default([]),
    /** Links to `page#frag` on a target's HTML page must find an element with that id (or <a name>). */
    check_fragments: z.boolean().default(false),
    /** Links in stylesheets, <style> and style="" are found and checked. */
    check_css: z.boolean().default(true),
    /** How long an ok result of an external link is reused; unset: the top-level setting. */
    external_cache_max_age: duration.optional(),
    /** Ordered [regex, replacement] pairs: a link is fetched at the first one's replacement (model/link-rules.ts). */
    remap: RemapSchema,
    /** Host pattern → status codes or ranges that count as fine, e.g. {"github.com": [429]}. */
    accept: AcceptSchema,
    /** Timeouts, resets and 5xx tried again, at most `count` times, with exponential backoff from `base_ms`. */
    retries: RetriesSchema,
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.check_fragments && t.track_links !== 'all') {
      ctx.addIssue({
        code: 'custom',
        path: ['check_fragments'],
        message:
          'needs track_links "all": fragments are checked on links to HTML pages, which track_links "pdf" does not track',
      });
    }
  });

/**
 * A webhook: svc POSTs each matching crawl end to `url`, signed with `secret` (Standard Webhooks: HMAC-SHA256 over the
 * id, the time and the body; a `whsec_<base64>` secret is the key it encodes). A URL on a loopback or
 * private address is refused (at connect time, after DNS) unless `allow_private` is true, which allows that host:port.
 */
export const WebhookSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/, error: 'must be a full http(s) URL, e.g. https://hooks.example.org/svc' })
      .refine((u) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(u), {
        error:
          'must not carry a user name or password (they would be shown wherever the URL is; the receiver checks webhook-signature instead)',
      }),
    secret: z
      .string({
        error: 'is required: a shared secret of at least 16 characters (the receiver checks webhook-signature with it)',
      })
      .min(16, { error: 'must be at least 16 characters' })
      .max(1024, { error: 'must be at most 1024 characters' })
      .refine((s) => webhookSigningKey(s) !== null, {
        error: `starts with whsec_, so must be Standard Webhooks' form: whsec_ and the base64 of a key of at least ${STANDARD_SECRET_MIN_BYTES} bytes`,
      }),
    events: z
      .array(z.enum(WEBHOOK_EVENTS, { error: `must be one of ${WEBHOOK_EVENTS.join(', ')}` }), {
        error: `must be an array of events (${WEBHOOK_EVENTS.join(', ')})`,
      })
      .min(1, { error: `must list at least one event (${WEBHOOK_EVENTS.join(', ')})` })
      .default([...WEBHOOK_EVENTS]),
    allow_private: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .strict();

/** Cron expressions (5 fields, or 6 with seconds first; server local time) of the crawls `svc serve` queues. */
const ScheduleSchema = z
  .object({ full: cronExpression.nullable().optional(), partial: cronExpression.nullable().optional() })
  .strict();

const WebhookListSchema = z
  .array(WebhookSchema, { error: 'must be an array of {url, secret, events}' })
  .superRefine((hooks, ctx) => {
    const seen = new Set<string>();
    hooks.forEach((h, i) => {
      if (seen.has(h.url))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'url'],
          message: 'is listed twice: give each URL once, with all its events',
        });
      seen.add(h.url);
    });
  });

const publicToken = z
  .string({ error: "is required: the project's <id>:<region>, e.g. demo1234:eu-north-1" })
  .regex(PUBLIC_TOKEN_RE, 'must have the form <id>:<region>, e.g. demo1234:eu-north-1');

/** The token of the single-project form when the config names none (the demo's). */
export const DEFAULT_PUBLIC_TOKEN = 'demo1234:eu-north-1';

/** One entry of `projects`: a site of its own, with its own keys, crawls, pages, report, search and database. */
export const ProjectSchema = z
  .object({
    public_token: publicToken,
    targets: z.array(TargetSchema).default([]),
    schedule: ScheduleSchema.prefault({}),
    webhooks: WebhookListSchema.default([]),
  })
  .strict();

/** What belongs to one project in the single form; in the `projects` form it goes inside each entry instead. */
const PER_PROJECT_FIELDS = ['project', 'targets', 'schedule', 'webhooks'] as const;

// A section left out gets its fields' own defaults (prefault: the empty object is parsed, so there is one copy of each).
// The per-project fields have no default here: whether they were given decides between the two forms.
export const ConfigSchema = z
  .object({
    project: z.object({ public_token: publicToken }).strict().optional(),
    /**
     * Several projects in one service, instead of project, targets, schedule and webhooks. null: the single form
     * (what a parsed single-form config holds, so one written out reads back).
     */
    projects: z
      .array(ProjectSchema, { error: 'must be an array of {public_token, targets, schedule, webhooks}' })
      .min(1, { error: 'must list at least one project' })
      .nullable()
      .optional(),
    data_dir: z.string().min(1).default('./data'),
    /**
     * postgres://user:password@host:port/database: every project's data in that PostgreSQL database (a schema per
     * project) instead of SQLite files in data_dir. null: SQLite, the embedded default.
     */
    database_url: z
      .string({ error: 'must be a postgres:// URL (a string) or null' })
      .superRefine((u, ctx) => {
        const why = databaseUrlProblem(u);
        if (why) ctx.addIssue({ code: 'custom', message: why });
      })
      .nullable()
      .default(null),
    targets: z.array(TargetSchema).optional(),
    host: z
      .object({
        version: z
          .string()
          .regex(/^\d+(\.\d+){0,2}$/, 'must be a version like 6.9')
          .default('6.9'),
        rest_root: z
          .string()
          .regex(/^\/[A-Za-z0-9._~/-]*[^/]$/, 'must start with / and not end with /')
          .default('/wp-json'),
        posts_file: z.string().min(1).nullable().optional(),
        /** A change of the posts (import, delete, posts_file) queues one manual crawl of the changed posts' URLs. */
        live_update: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    server: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(8787),
        allowed_hosts: z.array(z.string().min(1)).default([]),
        allowed_origins: z.array(z.string().min(1)).default([]),
        max_body_bytes: z
          .number()
          .int()
          .min(1024)
          .max(64 * 1024 * 1024)
          .default(1024 * 1024),
        /**
         * The origin clients reach this server at (behind a proxy, say): the OAuth issuer, and `<public_url>/mcp` the
         * protected resource. Unset: the listening address.
         */
        public_url: z
          .url({ protocol: /^https?$/ })
          .refine(
            (u) => /^https?:\/\/[^/?#]+\/?$/.test(u),
            'must be an origin like https://svc.example.org, without a path, query or fragment',
          )
          .transform((u) => u.replace(/\/$/, ''))
          .nullable()
          .default(null),
        /** optional: a request to /mcp without a token runs as no user; required: it gets 401 and the OAuth challenge. */
        mcp_auth: z.enum(['optional', 'required']).default('required'),
      })
      .strict()
      .prefault({}),
    oauth: z
      .object({
        /**
         * Hosts (`name`: port 443, or `name:port`) whose Client ID Metadata Documents may be fetched although they
         * resolve to a private or loopback address; every other document host must be public.
         */
        cimd_allow_hosts: z
          .array(
            z
              .string()
              .min(1)
              .refine(
                (h) => /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(h),
                'must be a host name or host:port, without a scheme or path',
              ),
          )
          .default([]),
      })
      .strict()
      .prefault({}),
    api: z
      .object({
        base_url: z
          .url({ protocol: /^https?$/ })
          .nullable()
          .default(null),
        api_key: z.string().min(1).nullable().default(null),
        public_token: z.string().regex(PUBLIC_TOKEN_RE, 'must have the form <id>:<region>').nullable().default(null),
      })
      .strict()
      .prefault({}),
    schedule: ScheduleSchema.optional(),
    log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Default of every target's external_cache_max_age. */
    external_cache_max_age: duration.default(DEFAULT_EXTERNAL_CACHE_MAX_AGE),
    webhooks: WebhookListSchema.optional(),
    /** Requests per client and window on /v1, the ability routes and /mcp (svc serve). */
    rate_limits: RateLimitsSchema.prefault({}),
    /** GET /metrics of svc serve: Prometheus text; with a token, only for `Authorization: Bearer <token>`. */
    metrics: z
      .object({
        enabled: z.boolean({ error: 'must be true or false' }).default(false),
        token: z
          .string({ error: 'must be a string of at least 16 characters, or null' })
          .min(16, { error: 'must be at least 16 characters' })
          .max(1024, { error: 'must be at most 1024 characters' })
          .nullable()
          .default(null),
      })
      .strict()
      .prefault({}),
    /** Search analytics (docs/search.md): how many days each recorded search is kept; 0 records none. */
    search_stats: z
      .object({
        retention_days: z
          .number({ error: RETENTION_RULE })
          .int({ error: RETENTION_RULE })
          .min(0, { error: RETENTION_RULE })
          .max(SEARCH_STATS_RETENTION_MAX, { error: RETENTION_RULE })
          .default(SEARCH_STATS_RETENTION_DEFAULT),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (!c.projects) return;
    for (const field of PER_PROJECT_FIELDS) {
      if (c[field] === undefined) continue;
      const inside =
        field === 'project'
          ? 'each entry of projects has its own public_token'
          : `give each project its own in its entry (projects[i].${field})`;
      ctx.addIssue({ code: 'custom', path: [field], message: `cannot be used together with "projects": ${inside}` });
    }
    if (c.api.base_url)
      ctx.addIssue({
        code: 'custom',
        path: ['api', 'base_url'],
        message:
          'cannot be used together with "projects": a remote /v1 service serves one project, so use the single "project" form',
      });
    const seen = new Map<string, number>();
    c.projects.forEach((p, i) => {
      // Case-blind: each project's database file is named after its token.
      const key = p.public_token.toLowerCase();
      const first = seen.get(key);
      if (first === undefined) seen.set(key, i);
      else
        ctx.addIssue({
          code: 'custom',
          path: ['projects', i, 'public_token'],
          message: `must be unique: "${p.public_token}" is already the token of projects[${first}] (tokens that differ only in letter case count as the same)`,
        });
    });
  })
  .transform((c) => {
    const { projects, project, targets, schedule, webhooks, ...rest } = c;
    // The rest of the service reads project/targets/schedule/webhooks: in the projects form they are the first
    // project's (the one the host side — posts, users, abilities, MCP — acts on).
    const first = projects?.[0];
    return withTargetDefaults({
      ...rest,
      project: { public_token: first?.public_token ?? project?.public_token ?? DEFAULT_PUBLIC_TOKEN },
      targets: first?.targets ?? targets ?? [],
      schedule: first?.schedule ?? schedule ?? {},
      webhooks: first?.webhooks ?? webhooks ?? [],
      /** The `projects` form's entries, in order; null in the single form. */
      projects: projects ?? null,
    });
  });

/** Targets without their own external_cache_max_age take the config's top-level one (in place; returns the config). */
export function withTargetDefaults<
  C extends {
    external_cache_max_age: string;
    targets: { external_cache_max_age?: string | undefined }[];
    projects?: { targets: { external_cache_max_age?: string | undefined }[] }[] | null;
  },
>(c: C): C {
  for (const t of [...c.targets, ...(c.projects ?? []).flatMap((p) => p.targets)])
    t.external_cache_max_age ??= c.external_cache_max_age;
  return c;
}

export type Config = z.infer<typeof ConfigSchema>;
export type TargetConfig = z.infer<typeof TargetSchema>;
export type WebhookConfig = z.infer<typeof WebhookSchema>;
export type ProjectConfig = z.infer<typeof ProjectSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;

/** The projects a config serves, in order: the `projects` entries, or the single form's one project. */
export function projectsOf(config: Config): ProjectConfig[] {
  return (
    config.projects ?? [
      {
        public_token: config.project.public_token,
        targets: config.targets,
        schedule: config.schedule,
        webhooks: config.webhooks,
      },
    ]
  );
}

/**
 * The config as one project sees it: project, targets, schedule and webhooks are that project's, and `projects` (in
 * that form) lists it alone, so the layers below, which know one project, need nothing else. `token` undefined: the
 * first project. An unknown token answers the one-line reason, naming the configured tokens.
 */
export function forProject(config: Config, token?: string): Config | string {
  const all = projectsOf(config);
  const p = token === undefined ? all[0]! : all.find((q) => q.public_token === token);
  if (!p) return `no project "${token}" in this config; configured: ${all.map((q) => q.public_token).join(', ')}`;
  return {
    ...config,
    project: { public_token: p.public_token },
    targets: p.targets,
    schedule: p.schedule,
    webhooks: p.webhooks,
    projects: config.projects ? [p] : null,
  };
}

/**
 * The config with only the projects `tokens` names, in the config's order (svc worker --project): each opens as it
 * would with all of them (same database files). An unknown token answers the one-line reason, naming the configured
 * tokens.
 */
export function selectProjects(config: Config, tokens: readonly string[]): Config | string {
  if (!tokens.length) return config;
  const all = projectsOf(config);
  const unknown = tokens.filter((t) => !all.some((p) => p.public_token === t));
  if (unknown.length)
    return `no project ${unknown.map((t) => `"${t}"`).join(', ')} in this config; configured: ${all.map((q) => q.public_token).join(', ')}`;
  const kept = all.filter((p) => tokens.includes(p.public_token));
  const first = forProject(config, kept[0]!.public_token) as Config;
  return { ...first, projects: config.projects ? kept : null };
}
