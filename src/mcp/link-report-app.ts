// The link report as an MCP App (the io.modelcontextprotocol/ui extension): the ui://svc/link-report resource and
// its link (_meta.ui.resourceUri) from svc-link-report and svc-get-crawl. Only a client that declares the
// extension — in the request's _meta (2026-07-28) or in its initialize capabilities (2025) — is listed the
// resource and sees the link; every other client gets exactly the lists it always got. Tool results never change:
// the host hands them to the App, whose own calls come back through the same tools as the same user.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type JSONRPCRequest,
  type ListResourcesResult,
  type McpServer,
  type Result,
  type Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { packageVersion } from '../lib/package-version.js';
import { linkReportAppDocument } from '../report-view/app-document.js';
import { toolInventory } from '../tools/index.js';
import type { AbilityRegistry } from '../abilities/types.js';

export const LINK_REPORT_APP_URI = 'ui://svc/link-report';
/** The tools whose results the App shows. */
export const APP_TOOLS: readonly string[] = ['svc-link-report', 'svc-get-crawl'];

let document: string | undefined;
/** The App document, built once per process from the installed ext-apps App API bundle. */
export function linkReportApp(): string {
  if (document === undefined) {
    const bundle = readFileSync(
      fileURLToPath(import.meta.resolve('@modelcontextprotocol/ext-apps/app-with-deps')),
      'utf8',
    );
    document = linkReportAppDocument(bundle, packageVersion());
  }
  return document;
}

/** Whether this request's client declared the MCP Apps extension with the App's MIME type (or with none named). */
export function declaresUi(ctx: ServerContext, server: Server): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps =
    (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.getClientCapabilities();
  const ui = getUiCapability(caps);
  if (!ui) return false;
  return !Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(RESOURCE_MIME_TYPE);
}

/** The tool list a UI client sees: the App tools carry the link to the resource. */
export function withAppLinks(tools: readonly Tool[]): Tool[] {
  return tools.map((t) =>
    APP_TOOLS.includes(t.name) ? { ...t, _meta: { ...t._meta, ui: { resourceUri: LINK_REPORT_APP_URI } } } : t,
  );
}

type StoredHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * Registers the App resource and makes tools/list and resources/list answer per client. Call after the tools,
 * resources and prompts are registered (it wraps their list handlers).
 */
export function registerLinkReportApp(mcp: McpServer, registry: AbilityRegistry): void {
  const server = mcp.server;
  mcp.registerResource(
    'link-report-app',
    LINK_REPORT_APP_URI,
    {
      title: 'Link report (interactive view)',
      description:
        'The link report as an interactive view for hosts that render MCP Apps: counts per reason, problems by link and by page, filter and sort, re-check a page, page meta, crawl progress.',
      mimeType: RESOURCE_MIME_TYPE,
    },
    (uri) => ({
      contents: [
        { uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: linkReportApp(), _meta: { ui: { prefersBorder: true } } },
      ],
    }),
  );
  // The SDK's resources/list lists every registered resource; a client without the extension must not see this one.
  const listResources = (
    server as unknown as { _getRequestHandler(m: string): StoredHandler | undefined }
  )._getRequestHandler('resources/list');
  if (!listResources) throw new Error('resources/list must be registered before the link report App');
  server.setRequestHandler('resources/list', async (req, ctx) => {
    const out = (await listResources(
      { jsonrpc: '2.0', id: 0, method: 'resources/list', params: req.params ?? {} },
      ctx,
    )) as ListResourcesResult;
    if (declaresUi(ctx, server)) return out;
    return { ...out, resources: out.resources.filter((r) => r.uri !== LINK_REPORT_APP_URI) };
  });
  const tools = toolInventory(registry).definitions;
  const linked = withAppLinks(tools);
  server.setRequestHandler('tools/list', (_req, ctx) => ({ tools: declaresUi(ctx, server) ? linked : tools }));
}
