// svc as people install it, from the packed package: only what runs is in it; installed into an empty prefix (its
// production dependencies from the npm cache, as npm places them, no network) it runs from any folder: --version,
// the demo, and an MCP client over stdio listing the tools; an install on a Node older than engines.node stops in
// preinstall naming the version; and `npm run bundle` builds an .mcpb for this platform that mcpb unpacks and whose
// server starts over stdio (the SDK's real client), or refuses a platform without a prebuilt addon, saying why.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { unpackExtension } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeVersionProblem, packageVersion } from '../../src/lib/package-version.js';
import { TOOL_NAMES } from '../support/mcp-tool-suite.js';
import { ROOT } from '../support/paths.js';
import { until } from '../support/wait.js';

const NODE_DIR = dirname(process.execPath);
const ENV = { ...process.env, PATH: `${NODE_DIR}:${process.env.PATH ?? ''}`, npm_config_offline: 'true' };
const VERSION = packageVersion();

function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = ENV): string {
  return execFileSync('npm', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function toolsOverStdio(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<string[]> {
  const client = new Client({ name: 'install-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command, args, cwd, env: { PATH: ENV.PATH, ...env }, stderr: 'pipe' }),
  );
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

let dir: string;
let tarball: string;
let files: string[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-install-'));
  // dist/ is fresh (the suite's globalSetup); `npm pack` would rebuild it in prepack, under the other tests' feet.
  const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], ROOT)) as {
    filename: string;
    files: { path: string }[];
  }[];
  tarball = join(dir, packed!.filename);
  files = packed!.files.map((f) => f.path);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packed package', () => {
  it('holds what runs and nothing else', () => {
    expect(tarball.endsWith(`svc-mcp-${VERSION}.tgz`)).toBe(true);
    expect(files).toContain('dist/src/server.js');
    expect(files).toContain('src/demo/content/posts.json');
    expect(files).toContain('package.json');
    expect(files.filter((f) => /\.map$|^dist\/(test|bench|scripts)\/|^test\/|^bench\/|^src\/.*\.ts$/.test(f))).toEqual(
      [],
    );
  });
});

describe('installed into an empty prefix', () => {
  let svc: string;
  let empty: string;
  beforeAll(() => {
    // What `npm install -g --prefix P svc-mcp` lays out: the package in P/lib/node_modules, its production dependencies
    // beside it (installed here from the lockfile and the npm cache: a test reaches no registry), its bin in P/bin.
    const pkgDir = join(dir, 'prefix/lib/node_modules/svc-mcp');
    mkdirSync(pkgDir, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', pkgDir, '--strip-components=1']);
    cpSync(join(ROOT, 'package-lock.json'), join(pkgDir, 'package-lock.json'));
    npm(['ci', '--omit=dev', '--no-audit', '--no-fund'], pkgDir);
    svc = join(dir, 'prefix/bin/svc');
    mkdirSync(dirname(svc), { recursive: true });
    symlinkSync(join(pkgDir, 'dist/src/server.js'), svc);
    empty = join(dir, 'empty');
    mkdirSync(empty);
  }, 300_000);

  it('svc --version from an empty folder', () => {
    expect(statSync(svc).mode & 0o111).not.toBe(0);
    expect(execFileSync(svc, ['--version'], { cwd: empty, env: ENV, encoding: 'utf8' }).trim()).toBe(VERSION);
  });

  it('svc mcp over stdio lists the tools (an MCP client starting the installed command)', async () => {
    const config = join(dir, 'svc.json');
    writeFileSync(config, JSON.stringify({ data_dir: join(dir, 'data'), log_level: 'warn' }));
    expect((await toolsOverStdio(svc, ['mcp'], empty, { SVC_CONFIG: config })).sort()).toEqual([...TOOL_NAMES].sort());
  }, 60_000);

  it('svc serve with no config serves the demo from an empty folder', async () => {
    const child = spawn(svc, ['serve', '--port', '0'], { cwd: empty, env: { ...ENV, SVC_LOG_LEVEL: 'info' } });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    try {
      const line = await until(
        'the demo to listen',
        () => err.split('\n').find((l) => l.includes('svc serve listening')),
        60_000,
      );
      const { base_url, demo } = JSON.parse(line) as { base_url: string; demo: boolean };
      expect(demo).toBe(true);
      expect((await fetch(`${base_url}/healthz`)).status).toBe(200);
      expect(existsSync(join(empty, 'data'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
  }, 90_000);
});

const OLD_NODE = '/usr/bin/node';
const oldNode = existsSync(OLD_NODE)
  ? execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
  : null;

describe.skipIf(!oldNode || !nodeVersionProblem(oldNode))(`an install on an old Node (${oldNode})`, () => {
  it('stops in preinstall, naming the Node needed and the one it has', () => {
    const pkgDir = join(dir, 'old/svc-mcp');
    mkdirSync(pkgDir, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', pkgDir, '--strip-components=1']);
    cpSync(join(ROOT, 'package-lock.json'), join(pkgDir, 'package-lock.json'));
    const env = { ...ENV, PATH: `${dirname(OLD_NODE)}:${process.env.PATH ?? ''}` };
    const r = spawnSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: pkgDir, env, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    // npm's own engine check (engine-strict, as `npm test` under this repository's .npmrc passes it on) or, without
    // it, svc's preinstall: either way the install stops naming the Node needed and the one it has.
    expect(r.stderr).toContain('>=22.19');
    expect(r.stderr).toContain(oldNode!);
  }, 120_000);
});

describe('npm run bundle', () => {
  const target = `${process.platform}-${process.arch}`;
  let bundle: string;
  beforeAll(() => {
    execFileSync(process.execPath, [join(ROOT, 'dist/scripts/bundle.js'), '--out', join(dir, 'bundles')], {
      cwd: ROOT,
      env: ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    bundle = join(dir, 'bundles', `svc-${VERSION}-${target}.mcpb`);
  }, 300_000);

  it('builds svc-<version>-<os>-<arch>.mcpb; unpacked, its server starts over stdio and lists the tools', async () => {
    expect(existsSync(bundle)).toBe(true);
    const out = join(dir, 'unpacked');
    expect(await unpackExtension({ mcpbPath: bundle, outputDir: out, silent: true })).toBe(true);
    chmodSync(join(out, 'dist/src/server.js'), 0o755);
    // Only this platform's addon went in.
    expect(existsSync(join(out, 'node_modules/better-sqlite3/prebuilds', `${target}.node`))).toBe(true);
    expect(existsSync(join(out, 'node_modules/better-sqlite3/prebuilds/win32-x64.node'))).toBe(target === 'win32-x64');
    const config = join(dir, 'bundle.json');
    writeFileSync(config, JSON.stringify({ data_dir: join(dir, 'bundle-data'), log_level: 'warn' }));
    // As the manifest's mcp_config starts it: node <bundle>/dist/src/server.js mcp, SVC_CONFIG and SVC_USER set.
    const tools = await toolsOverStdio(process.execPath, [join(out, 'dist/src/server.js'), 'mcp'], dir, {
      SVC_CONFIG: config,
      SVC_USER: '',
    });
    expect(tools.sort()).toEqual([...TOOL_NAMES].sort());
  }, 60_000);

  it('refuses a platform without a prebuilt addon, saying why', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'dist/scripts/bundle.js'), '--platform', 'freebsd-x64'], {
      cwd: ROOT,
      env: ENV,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^npm run bundle: no prebuilt better-sqlite3 addon for freebsd-x64: .*linux-x64/);
  });
});
