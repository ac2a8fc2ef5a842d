// mcp.json.example stays valid JSON with a stdio and an HTTP entry for each client.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.js';

describe('mcp.json.example', () => {
  const example = JSON.parse(readFileSync(join(ROOT, 'mcp.json.example'), 'utf8')) as Record<string, Record<string, Record<string, Record<string, unknown>>>>;

  it('has stdio (svc mcp with SVC_USER) and HTTP (/mcp with a bearer token) entries for Claude Desktop, VS Code and Cursor', () => {
    const clients = Object.keys(example).filter((k) => !k.startsWith('_'));
    expect(clients.map((k) => k.split(' ')[0])).toEqual(['claude_desktop', 'vscode', 'cursor']);
    for (const key of clients) {
      const servers = example[key]!.servers ?? example[key]!.mcpServers!;
      const stdio = servers.svc!;
      expect(stdio.args, key).toEqual(expect.arrayContaining(['mcp', '--config']));
      expect(stdio.env, key).toHaveProperty('SVC_USER');
      const http = JSON.stringify(servers['svc-http']);
      expect(http, key).toContain('http://127.0.0.1:8787/mcp');
      expect(http, key).toMatch(/Bearer /);
    }
  });
});
