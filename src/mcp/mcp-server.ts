// One MCP server as both transports build it: the tools of the host's ability registry, the current user of
// the connection, and the logging capability (logging/setLevel filters the notifications sent to the client;
// the server's own logs go to stderr through pino).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SetLevelRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { User } from '../model/users.js';
import type { Logger } from '../lib/log.js';
import { packageVersion } from '../lib/package-version.js';
import { registerTools } from '../tools/index.js';
import type { Host } from '../abilities/runtime.js';
import { registerResourcesAndPrompts } from './resources.js';

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];
/** Until the client sets a level, only problems are sent as notifications. */
const DEFAULT_LEVEL: LoggingLevel = 'warning';

export const SERVER_NAME = 'svc';
export const SERVER_VERSION = packageVersion();

const INSTRUCTIONS = [
  'svc indexes one website for full-text search and records the outcome of every link its crawls find.',
  'Use svc-search to find pages by words and svc-get-page-meta for what is indexed about one post.',
  'Use svc-link-report for broken (not_found), forbidden, failing (server_error) and redirected links; it reads',
  'what crawls recorded and is cached for 15 minutes (pass refresh: true after a crawl).',
  'svc-full-crawl, svc-partial-crawl and svc-manual-crawl start a crawl and return at once with its record;',
  'follow it with svc-get-crawl and wait_seconds (up to 60 s per call) until it is completed, stopped or failed.',
  'Over stdio the crawl runs inside this process: exiting stops it.',
  'svc-delete-pages removes pages from the index (at most 50 URLs). Reports, crawls and deletions need a',
  'user with manage_options; an ability_invalid_permissions error means the current user may not run it.',
  'Resources: svc://crawls/{id} and svc://link-report/{target}; prompt audit-broken-links.',
].join(' ');

export interface McpServerOptions {
  host: Host;
  /** The current user (null: none; every tool then answers ability_invalid_permissions). */
  user: User | null;
  /** How a client of this transport sets a current user (stdio: SVC_USER; HTTP: the Authorization header). */
  signInHint?: string;
  logger: Logger;
}

/** The instructions an initialize answer carries: how to use the tools, or why there are none. */
export function serverInstructions(host: Host): string {
  if (host.abilitiesEnabled) return INSTRUCTIONS;
  return `This server lists no tools: ${host.disabledReason ?? `host version ${host.version} has no abilities (they need 6.9 or newer)`}.`;
}

// The server validates only what it asks of clients (elicitation), never on our paths, yet builds an Ajv for it
// in its constructor. One lazily made instance spares `svc mcp` its start-up cost and every stateless HTTP
// request a new Ajv (~0.5 ms).
let ajv: AjvJsonSchemaValidator | undefined;
const lazyValidator: jsonSchemaValidator = {
  getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

export function createMcpServer(opts: McpServerOptions): Server {
  const mcp = new McpServer(
    { name: SERVER_NAME, title: 'svc site search and link report', version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false }, logging: {} },
      instructions: serverInstructions(opts.host),
      jsonSchemaValidator: lazyValidator,
    },
  );
  // Tools go on the low-level server (their schemas are the abilities' own); resources, prompts and completions
  // use the SDK's registrations.
  const server = mcp.server;
  if (opts.host.abilitiesEnabled) {
    registerResourcesAndPrompts(mcp, { host: opts.host, user: opts.user, signInHint: opts.signInHint });
    // The lists are fixed for the life of a connection (the SDK's registration says otherwise by default).
    server.registerCapabilities({ resources: { listChanged: false }, prompts: { listChanged: false } });
  }
  let minLevel = LEVELS.indexOf(DEFAULT_LEVEL);
  // Replaces the SDK's own handler so this server knows the level it must honour.
  server.setRequestHandler(SetLevelRequestSchema, (req) => {
    minLevel = LEVELS.indexOf(req.params.level);
    return {};
  });
  const log = opts.logger.child({ mcp: true, user: opts.user?.login ?? null });
  registerTools(server, {
    registry: opts.host.registry,
    user: opts.user,
    signInHint: opts.signInHint,
    onCall: async ({ tool, ms, result, error }, sendNotification) => {
      const duration_ms = Math.round(ms * 100) / 100;
      let level: LoggingLevel;
      let text: string;
      if (error !== undefined) {
        log.error({ err: error, tool, duration_ms }, 'tool call failed unexpectedly');
        level = 'error';
        text = `${tool} failed unexpectedly`;
      } else if (result.isError) {
        text = result.content[0]?.type === 'text' ? result.content[0].text : 'error';
        log.info({ tool, duration_ms, error: text }, 'tool call answered an error');
        level = 'warning';
      } else {
        log.debug({ tool, duration_ms }, 'tool call');
        level = 'info';
        text = `${tool} answered`;
      }
      if (LEVELS.indexOf(level) < minLevel) return;
      // Sent on the request's own stream, so it reaches stateless HTTP clients too.
      await sendNotification({
        method: 'notifications/message',
        params: { level, logger: 'svc', data: { tool, duration_ms, message: text } },
      }).catch(() => {});
    },
  });
  return server;
}
