// svc's own version and the Node it needs, read from its package.json (the MCP server and the report formats name
// the version; the command refuses a Node older than engines.node with one clear line instead of a native crash).
import { readFileSync } from 'node:fs';

interface PackageJson {
  version: string;
  engines?: { node?: string };
}

let cached: PackageJson | undefined;

function ownPackage(): PackageJson {
  if (cached !== undefined) return cached;
  // src/lib (tests) or dist/src/lib (built): the package root is two or three levels up.
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
      } & Partial<PackageJson>;
      if (pkg.name === 'svc-mcp' && pkg.version) return (cached = { version: pkg.version, engines: pkg.engines });
    } catch {
      // try the next level
    }
  }
  return (cached = { version: '0.0.0' });
}

export function packageVersion(): string {
  return ownPackage().version;
}

/**
 * Why this Node cannot run svc ("Node >=22.19 is needed; this is Node 20.20.2"), or null when it can. Only the
 * ">=MAJOR.MINOR[.PATCH]" form engines.node uses is understood; anything else lets every Node through.
 */
export function nodeVersionProblem(
  nodeVersion: string,
  required: string | undefined = ownPackage().engines?.node,
): string | null {
  const min = required && /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(required.trim());
  if (!min) return null;
  const have = nodeVersion
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
  const want = [1, 2, 3].map((i) => Number(min[i] ?? 0));
  for (let i = 0; i < 3; i++) {
    if (have[i]! > want[i]!) return null;
    if (have[i]! < want[i]!)
      return `Node ${required!.replace(/\s+/g, '')} is needed; this is Node ${nodeVersion.replace(/^v/, '')}`;
  }
  return null;
}
