// svc's own version, read from its package.json (the MCP server and the report formats name it).
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached !== undefined) return cached;
  // src/lib (tests) or dist/src/lib (built): the package root is two or three levels up.
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'svc-mcp' && pkg.version) return (cached = pkg.version);
    } catch {
      // try the next level
    }
  }
  return (cached = '0.0.0');
}
