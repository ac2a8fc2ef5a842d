// The inventory of MCP tools: one per svc/* ability, each in its own file. Registers tools/list and
// tools/call on a low-level MCP Server so the published schemas are the ability's own JSON Schemas, byte for
// byte (McpServer.registerTool would re-derive them from zod and validate input a second time). The same
// handlers serve both protocol eras: the SDK frames the answer for the era of the request.
import {
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequiredResult,
  type Result,
  type Server,
  type ServerContext,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/server';
import type { AbilityProgress, AbilityRegistry } from '../abilities/types.js';
import type { User } from '../model/users.js';
import { svcGetCrawl } from './svc-get-crawl.js';
import { callTool, errorResult, protocolError, type ToolSpec, toolDefinition } from './define.js';
import { svcDeletePages } from './svc-delete-pages.js';
import { svcFullCrawl } from './svc-full-crawl.js';
import { svcGetPage } from './svc-get-page.js';
import { svcGetPageMeta } from './svc-get-page-meta.js';
import { svcListPages } from './svc-list-pages.js';
import { svcLinkReport } from './svc-link-report.js';
import { svcManualCrawl } from './svc-manual-crawl.js';
import { svcPartialCrawl } from './svc-partial-crawl.js';
import { svcSearch } from './svc-search.js';

export const TOOLS: readonly ToolSpec[] = [
  svcSearch,
  svcGetPage,
  svcListPages,
  svcGetPageMeta,
  svcLinkReport,
  svcFullCrawl,
  svcPartialCrawl,
  svcManualCrawl,
  svcDeletePages,
  svcGetCrawl,
];

export interface ToolInventory {
  definitions: Tool[];
  byName: Map<string, ToolSpec>;
}

const inventories = new WeakMap<AbilityRegistry, ToolInventory>();

/** The tools whose ability the registry has (none below host 6.9), built once per registry. */
export function toolInventory(registry: AbilityRegistry): ToolInventory {
  let inv = inventories.get(registry);
  if (!inv) {
    inv = { definitions: [], byName: new Map() };
    for (const spec of TOOLS) {
      const ability = registry.get(spec.ability);
      if (!ability) continue;
      inv.definitions.push(toolDefinition(spec, ability));
      inv.byName.set(spec.name, spec);
    }
    inventories.set(registry, inv);
  }
  return inv;
}

export interface RegisterToolsOptions {
  registry: AbilityRegistry;
  /** The current user of this connection (stdio: SVC_USER; HTTP: the bearer token's user); null when none. */
  user: User | null;
  /** How a caller of this transport sets a current user; the no-user error says it. */
  signInHint?: string;
  /** Told about every call after it ran (for logs, and logging notifications sent on the call's own stream). */
  onCall?: (
    info: { tool: string; ms: number; result: CallToolResult; error?: unknown },
    ctx: ServerContext,
  ) => Promise<void>;
  /**
   * Consulted before a known tool runs its ability: an answer to send instead (a task for a crawl tool whose
   * request declared the tasks extension, an input_required asking to confirm a deletion), or undefined to run
   * the tool as always. The place for answers that depend on what the request declared, not on the ability.
   */
  before?: ToolCallStep;
}

/** What a step before a tool call sees; its answer replaces the call's (see RegisterToolsOptions.before). */
export type ToolCallStep = (
  call: { spec: ToolSpec; args: Record<string, unknown> | undefined; user: User | null },
  ctx: ServerContext,
) => Promise<ToolCallAnswer | undefined>;

/** A started task (2026-07-28, tasks extension): the client follows it with tasks/get instead of waiting. */
export type TaskAnswer = Result & { resultType: 'task' };

/**
 * A tool call's answer: a result, or (2026-07-28) an input_required round for the client to fulfil and retry, or a
 * task that will give the result later.
 */
export type ToolCallAnswer = CallToolResult | InputRequiredResult | TaskAnswer;

/** Progress is sent at most this often while it moves, and at least this often while it does not (as a keep-alive). */
const PROGRESS_MIN_MS = 250;
export const PROGRESS_KEEPALIVE_MS = 1000;

/**
 * An ability's progress → notifications/progress for one request's token. The protocol wants `progress` to grow
 * with every notification: when the pages done have not moved since the last one, a keep-alive adds a thousandth.
 * A total is sent only when the ability knows it, and progress never passes it (no keep-alive at the total).
 */
export function progressNotifier(
  progressToken: string | number,
  send: (n: ServerNotification) => Promise<void>,
  now = () => Date.now(),
): (p: AbilityProgress) => void {
  let last = -1;
  let lastAt = -Infinity;
  return (p) => {
    const t = now();
    const done = p.total === null ? p.done : Math.min(p.done, p.total);
    const moved = done > last;
    if (t - lastAt < (moved ? PROGRESS_MIN_MS : PROGRESS_KEEPALIVE_MS)) return;
    const progress = moved ? done : Math.round((last + 0.001) * 1000) / 1000;
    if (p.total !== null && progress > p.total) return;
    last = progress;
    lastAt = t;
    void send({
      method: 'notifications/progress',
      params: { progressToken, progress, ...(p.total === null ? {} : { total: p.total }), message: p.message },
    }).catch(() => {});
  };
}

export function registerTools(server: Server, opts: RegisterToolsOptions): void {
  const inv = toolInventory(opts.registry);
  server.setRequestHandler('tools/list', () => ({ tools: inv.definitions }));
  server.setRequestHandler('tools/call', async (req, ctx) => {
    const spec = inv.byName.get(req.params.name);
    if (!spec) throw protocolError(ProtocolErrorCode.InvalidParams, `unknown tool: ${req.params.name}`);
    const args = req.params.arguments;
    const instead = await opts.before?.({ spec, args, user: opts.user }, ctx);
    // A task is a tools/call result of the tasks extension, which the SDK's result type does not name.
    if (instead) return instead as CallToolResult | InputRequiredResult;
    const started = performance.now();
    let result: CallToolResult;
    let error: unknown;
    try {
      const token = req.params._meta?.progressToken;
      const notify = (n: ServerNotification) => ctx.mcpReq.notify(n);
      const onProgress = token === undefined ? undefined : progressNotifier(token, notify);
      result = await callTool(spec, opts.registry, args, {
        user: opts.user,
        signInHint: opts.signInHint,
        onProgress,
        signal: ctx.mcpReq.signal,
      });
    } catch (err) {
      // Not an ability error (those are results already): a bug or a crash below. The model still gets a result.
      error = err;
      result = errorResult('internal_error', `${spec.name} failed unexpectedly; the server log has the details`);
    }
    await opts.onCall?.({ tool: spec.name, ms: performance.now() - started, result, error }, ctx).catch(() => {});
    return result;
  });
}
