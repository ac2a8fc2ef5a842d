// mcp.json.example stays valid JSON with a stdio and an HTTP entry for each client, and its stdio entries start
// svc by the absolute path of its build (never `npx svc`: that name on the npm registry is another package).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.js';

describe('mcp.json.example', () => {
  const example = JSON.parse(readFileSync(join(ROOT, 'mcp.json.example'), 'utf8')) as Record<
    string,
    Record<string, Record<string, Record<string, unknown>>>
  >;
  const clients = Object.keys(example).filter((k) => !k.startsWith('_'));
  const serversOf = (key: string) => example[key]!.servers ?? example[key]!.mcpServers!;

  it('has stdio (svc mcp with SVC_USER) and HTTP (/mcp with a bearer token) entries for Claude Desktop, VS Code and Cursor', () => {
    expect(clients.map((k) => k.split(' ')[0])).toEqual(['claude_desktop', 'vscode', 'cursor']);
    for (const key of clients) {
      const servers = serversOf(key);
      const stdio = servers.svc!;
      expect(stdio.args, key).toEqual(expect.arrayContaining(['mcp', '--config']));
      expect(stdio.env, key).toHaveProperty('SVC_USER');
      const http = JSON.stringify(servers['svc-http']);
      expect(http, key).toContain('http://127.0.0.1:8787/mcp');
      expect(http, key).toMatch(/Bearer /);
    }
  });

  it('starts svc as node with the absolute path of dist/src/server.js in every stdio entry, so nothing else can run', () => {
    for (const key of clients) {
      const stdio = serversOf(key).svc!;
      expect(stdio.command, key).toBe('node');
      const [script, command] = stdio.args as string[];
      expect(script, key).toMatch(/^\/.*\/dist\/src\/server\.js$/);
      expect(command, key).toBe('mcp');
    }
    // No entry anywhere resolves svc through npx: `npx svc` would fetch the registry's unrelated `svc` package.
    for (const key of clients)
      for (const server of Object.values(serversOf(key))) {
        if (server.command !== 'npx') continue;
        expect((server.args as string[]).filter((a) => !a.startsWith('-'))[0], key).not.toMatch(/^svc(@|$)/);
      }
  });

  it('names its own package, which is not the registry package `svc`', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      name: string;
      bin: Record<string, string>;
    };
    expect(pkg.name).not.toBe('svc');
    expect(pkg.bin).toEqual({ svc: 'dist/src/server.js' });
  });
});
