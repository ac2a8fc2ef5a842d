// The MCP SDK's own OAuth client against a running `svc serve` (mcp_auth required) on loopback: it meets the
// 401, discovers the resource and the authorization server, registers itself, starts the code flow with PKCE;
// the test plays the user on the sign-in page over HTTP; then the SDK exchanges the code, lists the tools, and
// refreshes. The password is set by a spawned `svc users set-password` (stdin piped, as users run it); the other
// commands run in this process (test/support/cli.ts runHere).
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixture, startServe, type Fixture, type McpServe as ServeProcess } from '../support/mcp.js';
import { hereOutput, runHere, runSvc } from '../support/cli.js';
import { MemoryProvider, signIn, token } from '../support/oauth.js';

const PASSWORD = 'a long admin password';
const REDIRECT = 'http://127.0.0.1:1/oauth/callback';

let fx: Fixture;
let serve: ServeProcess;

beforeAll(async () => {
  fx = await makeFixture({ server: { mcp_auth: 'required' } });
  const r = await runSvc(['users', 'set-password', 'admin', '--config', fx.configPath], {
    input: `${PASSWORD}\n`,
    env: { SVC_LOG_LEVEL: undefined },
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toContain('password of "admin" set');
  serve = await startServe(fx);
}, 120_000);

afterAll(async () => {
  await serve?.stop();
  await fx?.cleanup();
});

async function connect(
  provider: MemoryProvider,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { authProvider: provider });
  const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('the SDK OAuth client against svc serve', () => {
  it('signs in (discovery, registration, PKCE, sign-in page, token), lists the tools, refreshes, and is cut off by revoke-tokens', async () => {
    const provider = new MemoryProvider({ redirectUri: REDIRECT, clientName: 'SDK test agent' });

    // 1. No token: the server says 401, the SDK discovers, registers and sends the user to /authorize.
    const transport = new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { authProvider: provider });
    const first = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toBeTruthy();
    expect(provider.client).toMatchObject({ token_endpoint_auth_method: 'none' });
    const authUrl = provider.authUrl!;
    expect(`${authUrl.origin}${authUrl.pathname}`).toBe(`${serve.baseUrl}/authorize`);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(serve.mcpUrl);
    expect(authUrl.searchParams.get('scope')).toBe('mcp');
    expect(authUrl.searchParams.get('state')).toBe(provider.stateValue);

    // 2. The user signs in on the page; the browser would land on the redirect URI with the code.
    const answer = await signIn(authUrl.href, 'admin', PASSWORD);
    expect(answer.status, answer.html).toBe(302);
    const landed = new URL(answer.location!);
    expect(`${landed.origin}${landed.pathname}`).toBe(REDIRECT);
    expect(landed.searchParams.get('state')).toBe(provider.stateValue);
    const code = landed.searchParams.get('code')!;

    // 3. The SDK exchanges the code (with its PKCE verifier) for tokens, then connects with them.
    await transport.finishAuth(code);
    expect(provider.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });
    const { client } = await connect(provider);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('svc-search');
    expect(tools).toContain('svc-full-crawl');
    // The token acts as admin: an administrator's tool runs.
    const report = await client.callTool({ name: 'svc-link-report', arguments: {} });
    expect(report.isError).toBeFalsy();
    await client.close();

    // 4. Refresh: the SDK trades the refresh token for new tokens; the old refresh token is spent.
    const before = provider.saved!;
    expect(await auth(provider, { serverUrl: new URL(serve.mcpUrl) })).toBe('AUTHORIZED');
    const after = provider.saved!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    const again = await connect(provider);
    expect((await again.client.listTools()).tools.length).toBe(tools.length);
    await again.client.close();

    // 5. `svc users revoke-tokens admin`: the tokens stop working and refreshing fails; the SDK must sign in again.
    const out = await hereOutput(['users', 'revoke-tokens', 'admin', '--config', fx.configPath]);
    expect(out).toBe('');
    provider.authUrl = undefined;
    await expect(connect(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authUrl).toBeDefined();

    // 6. The spent refresh token stays spent. (Replayed while its sign-in was alive, it would have ended that
    // sign-in's newer tokens too: oauth-review.test.ts.)
    const replay = await token(serve.baseUrl, {
      grant_type: 'refresh_token',
      client_id: provider.client!.client_id,
      refresh_token: before.refresh_token!,
    });
    expect(replay).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
  }, 60_000);

  it('static user tokens keep working beside OAuth', async () => {
    const client = new Client({ name: 'static', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(serve.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${fx.tokens.sub}` } },
      }),
    );
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it('users set-password refuses a short password and an unknown user, naming the problem', async () => {
    const short = await runHere(['users', 'set-password', 'admin', '--config', fx.configPath], {
      input: 'short\n',
      env: { SVC_LOG_LEVEL: undefined },
    });
    expect(short.status).not.toBe(0);
    expect(short.stderr).toContain('password: must be at least 8 characters');
    const nobody = await runHere(['users', 'set-password', 'nobody', '--config', fx.configPath], {
      input: 'long enough password\n',
      env: { SVC_LOG_LEVEL: undefined },
    });
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toContain('login "nobody": no such user');
    const revokeNobody = await runHere(['users', 'revoke-tokens', 'nobody', '--config', fx.configPath], {
      env: { SVC_LOG_LEVEL: undefined },
    });
    expect(revokeNobody.status).toBe(1);
  });
});
