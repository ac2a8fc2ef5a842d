// Raw JSON-RPC over HTTP, for what an SDK client hides or does not do: the task methods, a retry with a forged
// requestState, exact wire shapes. A 2026-07-28 request carries the headers and the _meta envelope such a client
// sends; a 2025 initialize is a plain POST.
export const MODERN = '2026-07-28';

export interface RawAnswer {
  status: number;
  body: {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
}

export interface RawOptions {
  /** Client capabilities of the request (_meta); none by default. */
  capabilities?: Record<string, unknown>;
  /** Another user's bearer token for this request. */
  token?: string;
}

/** The _meta envelope of a 2026-07-28 request declaring `capabilities`. */
export function envelopeWith(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
}

/** Sends raw 2026-07-28 requests to `mcpUrl` as the holder of `token`. */
export function rawClient(mcpUrl: string, token: string) {
  let id = 0;
  return async function rpc(
    method: string,
    params: Record<string, unknown>,
    opts: RawOptions = {},
  ): Promise<RawAnswer> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${opts.token ?? token}`,
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
    };
    // The name-shaped field of the body goes in Mcp-Name too: a tool's name, a task's id.
    const name = params.name ?? params.taskId;
    if (typeof name === 'string') headers['mcp-name'] = name;
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: { ...params, _meta: envelopeWith(opts.capabilities) },
      }),
    });
    return { status: res.status, body: (await res.json()) as RawAnswer['body'] };
  };
}

/** The result of a raw 2025 `initialize` of `version` on `mcpUrl` (no token, JSON only). */
export async function legacyInitialize(mcpUrl: string, version: string): Promise<Record<string, unknown>> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  return ((await res.json()) as { result: Record<string, unknown> }).result;
}
