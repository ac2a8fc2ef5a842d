// MCP over stdio (`svc mcp`): one connection for the life of the process, one current user. stdout carries
// protocol messages only; everything else goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer, type McpServerOptions } from './mcp-server.js';

/** Serves until the client closes stdin (or the transport fails); resolves then. */
export async function serveStdio(opts: McpServerOptions): Promise<void> {
  const server = createMcpServer(opts);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  server.onerror = (err) => opts.logger.warn({ err }, 'mcp stdio: protocol error');
  await server.connect(transport);
  // The SDK transport does not watch for the end of stdin: the client going away ends the session.
  process.stdin.once('end', () => void server.close());
  process.stdin.once('close', () => void server.close());
  await closed;
}
