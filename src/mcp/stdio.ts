// MCP over stdio (`svc mcp`): one connection for the life of the process, one current user. The SDK's entry
// picks the era from the client's opening (`server/discover` for 2026-07-28, `initialize` for 2025) and pins one
// server from our factory for the connection. stdout carries protocol messages only; everything else goes to
// stderr.
import { serveStdio as serveStdioEntry, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createMcpServer, type McpServerOptions } from './mcp-server.js';

/** Serves until the client closes stdin (a client that dies closes it too); resolves then. */
export async function serveStdio(opts: McpServerOptions): Promise<void> {
  const transport = new StdioServerTransport();
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  const handle = serveStdioEntry(({ era }) => createMcpServer({ ...opts, era }), {
    transport,
    onerror: (err) => opts.logger.warn({ err }, 'mcp stdio: protocol error'),
  });
  // The entry owns the transport's callbacks: the end of stdin is how this process learns the client went away.
  let ending = false;
  const end = () => {
    if (ending) return;
    ending = true;
    void handle.close().finally(ended);
  };
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  await closed;
}
