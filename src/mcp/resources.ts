// MCP resources and prompts over the abilities: a crawl record (svc://crawls/{id}), a target's link report
// (svc://link-report/{target}) and a stored page (its own http(s) URL, as svc-search links it) as JSON, and the
// prompt audit-broken-links. Everything is read through the
// registry as the connection's user, so resources show exactly what the tools would; a user without
// manage_options is listed no resource and completed no target.
import {
  completable,
  ProtocolErrorCode,
  ResourceTemplate,
  type McpServer,
  type ReadResourceResult,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AbilityHost } from '../abilities/runtime.js';
import { AbilityError } from '../abilities/types.js';
import { protocolError, toolDescription } from '../tools/define.js';
import type { User } from '../model/users.js';

const CRAWL_TEMPLATE = 'svc://crawls/{id}';
const REPORT_TEMPLATE = 'svc://link-report/{target}';
const AUDIT_PROMPT = 'audit-broken-links';

const crawlUri = (id: number) => `svc://crawls/${id}`;
const reportUri = (target: string) => `svc://link-report/${encodeURIComponent(target)}`;

export interface ResourceOptions {
  host: AbilityHost;
  user: User | null;
  signInHint?: string;
}

export function registerResourcesAndPrompts(mcp: McpServer, opts: ResourceOptions): void {
  const { host, user } = opts;
  const manager = () => host.can(user, 'manage_options');
  const run = async (ability: string, input: Record<string, unknown>, uri: string): Promise<ReadResourceResult> => {
    try {
      const out = await host.registry.execute(ability, input, { user, signInHint: opts.signInHint });
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(out) }] };
    } catch (err) {
      if (!(err instanceof AbilityError)) throw err;
      const code =
        err.code === 'svc_crawl_not_found' || err.code === 'svc_page_not_found'
          ? ProtocolErrorCode.ResourceNotFound
          : ProtocolErrorCode.InvalidParams;
      throw protocolError(code, `${uri}: ${err.code}: ${toolDescription(err.message)}`);
    }
  };
  const targets = (prefix: string | undefined) =>
    manager() ? host.targetHosts.filter((t) => t.toLowerCase().startsWith((prefix ?? '').toLowerCase())) : [];

  mcp.registerResource(
    'crawl',
    new ResourceTemplate(CRAWL_TEMPLATE, {
      list: async () => {
        if (!manager()) return { resources: [] };
        try {
          const latest = (await host.registry.execute('svc/get-crawl', {}, { user })) as {
            id: number;
            mode: string;
            status: string;
          };
          return {
            resources: [
              {
                uri: crawlUri(latest.id),
                name: `crawl-${latest.id}`,
                title: `Latest crawl (${latest.id}, ${latest.mode}, ${latest.status})`,
              },
            ],
          };
        } catch {
          return { resources: [] };
        }
      },
    }),
    {
      title: 'Crawl record',
      description:
        'A crawl record as svc-get-crawl answers it (id, mode, status, urls, started_at, finished_at, stats, error). The latest crawl is listed.',
      mimeType: 'application/json',
    },
    async (uri, vars) => {
      const raw = String(vars.id ?? '');
      const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
      if (!(id >= 1))
        throw protocolError(
          ProtocolErrorCode.InvalidParams,
          `${uri.href}: the crawl id must be a whole number of at least 1`,
        );
      return run('svc/get-crawl', { id }, uri.href);
    },
  );

  mcp.registerResource(
    'link-report',
    new ResourceTemplate(REPORT_TEMPLATE, {
      list: async () => ({
        resources: targets(undefined).map((t) => ({
          uri: reportUri(t),
          name: `link-report-${t}`,
          title: `Link report of ${t}`,
        })),
      }),
      complete: { target: (value) => targets(value) },
    }),
    {
      title: 'Link report of a target',
      description:
        'The broken-link report of one configured target as svc-link-report answers it (summary, links, top_links, targets, truncated, last_full_crawl, notice). One is listed per target.',
      mimeType: 'application/json',
    },
    async (uri, vars) => {
      let target: string;
      try {
        target = decodeURIComponent(String(vars.target ?? ''));
      } catch {
        throw protocolError(ProtocolErrorCode.InvalidParams, `${uri.href}: the target is not valid URL encoding`);
      }
      return run('svc/link-report', { target }, uri.href);
    },
  );

  // The pages of each target, by their own address: what svc-search's resource links point at. Not listed (a site
  // has too many pages for a list; svc-list-pages pages through them).
  host.targetOrigins.forEach((origin, i) => {
    mcp.registerResource(
      `page-${i + 1}`,
      new ResourceTemplate(`${origin}{+path}`, { list: undefined }),
      {
        title: `A stored page of ${origin}`,
        description:
          'A page of the site as the last crawl stored it, as svc-get-page answers it (outline, markdown from start_index 0, next_start_index): read on with svc-get-page.',
        mimeType: 'application/json',
      },
      async (uri) => run('svc/get-page', { url: uri.href }, uri.href),
    );
  });

  mcp.registerPrompt(
    AUDIT_PROMPT,
    {
      title: 'Audit broken links',
      description:
        'Find and explain the broken links of one target: read its link report (crawling first when no full crawl has completed), then list what to fix first.',
      argsSchema: z.object({
        target: completable(z.string().describe('The configured target host to audit (host or host:port).'), (value) =>
          targets(value),
        ),
      }),
    },
    ({ target }) => ({
      description: `Audit the broken links of ${target}`,
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: [
              `Audit the broken links of the site ${target}.`,
              `1. Call svc-link-report with {"target": "${target}", "reasons": ["not_found", "forbidden", "server_error"], "refresh": true}.`,
              '2. If its notice says no full crawl has completed yet, call svc-full-crawl, then svc-get-crawl with {"id": <its id>, "wait_seconds": 60} until its status is completed, stopped or failed; then read the report again.',
              '3. Start from top_links: the links carried by the most pages. For each, say what is wrong (reason, http_status) and on which pages it appears (the links list has each page).',
              '4. End with a short list of fixes, most pages helped first. Mention redirects only when asked: they still work.',
            ].join('\n'),
          },
        },
      ],
    }),
  );
}
