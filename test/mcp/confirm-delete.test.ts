// svc-delete-pages asks before it deletes, for clients that can show a form: over HTTP on 2026-07-28 an
// input_required round with a signed requestState (raw requests, to try every answer and a forged state, and the SDK
// v2 client, which fulfils the round with its own elicitation handler), over stdio on 2025 an elicitation/create
// request. Declined, cancelled, unticked, tampered, expired and changed-list retries delete nothing and say why;
// clients without elicitation delete as before.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteConfirmer } from '../../src/abilities/delete-confirmation.js';
import { decodeRequestStateKey, REQUEST_STATE_KEY_FILE } from '../../src/auth/request-state-key.js';
import { DEFAULT_PUBLIC_TOKEN } from '../../src/model/config.js';
import type { User } from '../../src/model/users.js';
import { makeFixture, startServe, textOf, type Fixture, type McpServe } from '../support/mcp.js';
import { MODERN, rawClient } from '../support/mcp-raw.js';
import { SERVER_JS } from '../support/paths.js';

const FORM = { elicitation: { form: {} } };

let fx: Fixture;
let serve: McpServe;
let rpc: ReturnType<typeof rawClient>;

beforeAll(async () => {
  fx = await makeFixture();
  serve = await startServe(fx);
  rpc = rawClient(serve.mcpUrl, fx.tokens.admin);
  // Index the site first (a plain call: no extension, so the crawl record comes back at once).
  const started = await rpc('tools/call', { name: 'svc-full-crawl', arguments: {} });
  const id = (started.body.result!.structuredContent as { id: number }).id;
  await rpc('tools/call', { name: 'svc-get-crawl', arguments: { id, wait_seconds: 60 } });
});

afterAll(async () => {
  await serve?.stop();
  await fx?.cleanup();
});

type Answer = Awaited<ReturnType<typeof rpc>>;
const textOfRaw = (r: Answer) => (r.body.result?.content as { text: string }[] | undefined)?.[0]?.text ?? '';

/** The first call of a delete from a client with form elicitation: the input_required round. */
async function ask(urls: string[]) {
  const r = await rpc('tools/call', { name: 'svc-delete-pages', arguments: { urls } }, { capabilities: FORM });
  expect(r.status).toBe(200);
  return r.body.result as {
    resultType: string;
    requestState: string;
    inputRequests: { confirm: { method: string; params: { message: string; requestedSchema: unknown } } };
  };
}

/** The retry of a delete with `requestState` and `answer` (an elicitation result, or none). */
function retry(urls: string[], requestState: string, answer?: unknown) {
  return rpc(
    'tools/call',
    {
      name: 'svc-delete-pages',
      arguments: { urls },
      requestState,
      ...(answer !== undefined && { inputResponses: { confirm: answer } }),
    },
    { capabilities: FORM },
  );
}

describe(`delete confirmations over HTTP (${MODERN})`, () => {
  it('asks with one form listing the URLs and a signed state, then deletes nothing unless accepted with confirm: true', async () => {
    const url = fx.site.url('/news/one');
    const asked = await ask([url]);
    expect(asked.resultType).toBe('input_required');
    expect(Object.keys(asked.inputRequests)).toEqual(['confirm']);
    expect(asked.inputRequests.confirm.method).toBe('elicitation/create');
    expect(asked.inputRequests.confirm.params.message).toContain(`- ${url}`);
    expect(asked.requestState).toMatch(/^rs1\./);

    const refusals: [unknown, RegExp][] = [
      [{ action: 'decline' }, /^svc_delete_not_confirmed: Nothing was deleted: the user declined/],
      [{ action: 'cancel' }, /^svc_delete_not_confirmed: Nothing was deleted: the user dismissed/],
      [{ action: 'accept', content: { confirm: false } }, /^svc_delete_not_confirmed: .*without ticking confirm/],
      [undefined, /^svc_delete_not_confirmed: .*carried no answer/],
    ];
    for (const [answer, says] of refusals) {
      const r = await retry([url], asked.requestState, answer);
      expect(r.status).toBe(200);
      expect(r.body.result, JSON.stringify(answer)).toMatchObject({ resultType: 'complete', isError: true });
      expect(textOfRaw(r)).toMatch(says);
    }

    // A state changed by one character, a list changed after asking, and a state past its 10 minutes.
    // The signature's first character: the last one may only carry padding bits, which decode to the same bytes.
    const at = asked.requestState.lastIndexOf('.') + 1;
    const flipped = asked.requestState[at] === 'A' ? 'B' : 'A';
    const yes = { action: 'accept', content: { confirm: true } };
    const tampered = await retry(
      [url],
      `${asked.requestState.slice(0, at)}${flipped}${asked.requestState.slice(at + 1)}`,
      yes,
    );
    expect(tampered.status).toBe(200);
    expect(textOfRaw(tampered)).toMatch(
      /^svc_invalid_request_state: Nothing was deleted: requestState failed its signature/,
    );
    const changed = await retry([url, fx.site.url('/about')], asked.requestState, yes);
    expect(textOfRaw(changed)).toMatch(/^svc_invalid_request_state: .*another list of URLs/);
    const key = decodeRequestStateKey(readFileSync(join(fx.dir, 'data', REQUEST_STATE_KEY_FILE), 'utf8'), 'key');
    const old = deleteConfirmer(key, { tool: 'svc/delete-pages', project: DEFAULT_PUBLIC_TOKEN }).ask({
      user: { login: 'admin' } as User,
      urls: [url],
      now: Date.now() - 11 * 60_000,
    });
    const expired = await retry([url], old.requestState, yes);
    expect(textOfRaw(expired)).toMatch(/^svc_invalid_request_state: Nothing was deleted: requestState has expired/);
    // Another user's retry of admin's state (alice may not delete at all, so she hears that instead).
    const other = await rpc(
      'tools/call',
      {
        name: 'svc-delete-pages',
        arguments: { urls: [url] },
        requestState: asked.requestState,
        inputResponses: { confirm: yes },
      },
      { capabilities: FORM, token: fx.tokens.alice },
    );
    expect(JSON.stringify(other.body.result)).toMatch(/ability_invalid_permissions/);

    // None of that deleted the page: the accepted retry still finds it.
    const accepted = await retry([url], asked.requestState, yes);
    expect(accepted.body.result).toMatchObject({ structuredContent: { deleted: [url], not_found: [] } });
    expect(accepted.body.result).not.toHaveProperty('isError');
    // One confirmation, one deletion: the same state and answer again delete nothing, whatever was indexed since.
    const again = await retry([url], asked.requestState, yes);
    expect(again.body.result).toMatchObject({ isError: true });
    expect(textOfRaw(again)).toMatch(/^svc_invalid_request_state: Nothing was deleted: requestState was already used/);
  });

  it('deletes at once for a client that declares no elicitation, as before', async () => {
    const url = fx.site.url('/nowhere');
    const r = await rpc('tools/call', { name: 'svc-delete-pages', arguments: { urls: [url] } });
    expect(r.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { deleted: [], not_found: [url] },
    });
  });

  it('deletes at once for a 2025 client over HTTP even with elicitation: stateless, nothing can be asked', async () => {
    const url = fx.site.url('/nowhere');
    const client = formClient([], 'legacy');
    await client.connect(
      new StreamableHTTPClientTransport(new URL(serve.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${fx.tokens.admin}` } },
      }),
    );
    try {
      const r = (await client.callTool({ name: 'svc-delete-pages', arguments: { urls: [url] } })) as CallToolResult;
      expect(r.structuredContent).toEqual({ deleted: [], not_found: [url] });
      expect(client.asked).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('lets the SDK v2 client pinned to 2026-07-28 answer the form with its elicitation handler', async () => {
    const url = fx.site.url('/about');
    const client = formClient([]);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(serve.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${fx.tokens.admin}` } },
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const declined = (await client.callTool({
        name: 'svc-delete-pages',
        arguments: { urls: [url] },
      })) as CallToolResult;
      expect(declined.isError).toBe(true);
      expect(textOf(declined)).toMatch(/declined/);
      const accepted = (await client.callTool({
        name: 'svc-delete-pages',
        arguments: { urls: [url] },
      })) as CallToolResult;
      expect(accepted.structuredContent).toEqual({ deleted: [url], not_found: [] });
    } finally {
      await client.close();
    }
  });
});

/**
 * A v2 client that declares form elicitation and answers each form with the next of `answers` (then accepts), after
 * checking it asks about svc-delete-pages' URLs.
 */
function formClient(
  answers: unknown[],
  mode: 'legacy' | { pin: typeof MODERN } = { pin: MODERN },
): Client & { asked: string[] } {
  const client = new Client(
    { name: 'confirm', version: '1.0.0' },
    { capabilities: FORM, versionNegotiation: { mode } },
  ) as Client & { asked: string[] };
  client.asked = [];
  const queue = answers.length ? answers : [{ action: 'decline' }];
  client.setRequestHandler('elicitation/create', async (req) => {
    client.asked.push((req.params as { message: string }).message);
    return (queue.shift() ?? { action: 'accept', content: { confirm: true } }) as never;
  });
  return client;
}

describe('delete confirmations over stdio (2025-11-25)', () => {
  async function stdio<C extends Client>(client: C): Promise<C> {
    const transport: Transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER_JS, 'mcp', '--config', fx.configPath],
      env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', SVC_USER: 'admin' },
      stderr: 'pipe',
      cwd: fx.dir,
    });
    await client.connect(transport);
    return client;
  }

  it('asks with elicitation/create and deletes only when accepted', async () => {
    const url = fx.site.url('/');
    const client = await stdio(
      formClient([{ action: 'decline' }, { action: 'accept', content: { confirm: false } }], 'legacy'),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      for (const says of [/declined/, /without ticking confirm/]) {
        const r = (await client.callTool({ name: 'svc-delete-pages', arguments: { urls: [url] } })) as CallToolResult;
        expect(r.isError).toBe(true);
        expect(textOf(r)).toMatch(says);
      }
      const accepted = (await client.callTool({
        name: 'svc-delete-pages',
        arguments: { urls: [url] },
      })) as CallToolResult;
      expect(accepted.structuredContent).toEqual({ deleted: [url], not_found: [] });
      expect(client.asked).toHaveLength(3);
      expect(client.asked[0]).toContain(`- ${url}`);
    } finally {
      await client.close();
    }
  });

  it('deletes at once for a 2025 client without elicitation, as before', async () => {
    const url = fx.site.url('/nowhere');
    const client = await stdio(
      new Client({ name: 'plain', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } }),
    );
    try {
      const r = (await client.callTool({ name: 'svc-delete-pages', arguments: { urls: [url] } })) as CallToolResult;
      expect(r.structuredContent).toEqual({ deleted: [], not_found: [url] });
    } finally {
      await client.close();
    }
  });
});
