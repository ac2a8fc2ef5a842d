// STUB — owned by the MCP work (issue 6). Streamable HTTP transport at /mcp.
import type { App } from '../app.js';
import type { Host } from '../host/host.js';
import type { HttpHandler } from '../http/io.js';

export function createMcpHttpHandler(_app: App, _host: Host): HttpHandler {
  return async () => false;
}
