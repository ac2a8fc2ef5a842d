// `npm run bundle [-- --platform OS-ARCH] [--out DIR]`: the MCP Bundle (.mcpb) of svc for one platform,
// svc-<version>-<os>-<arch>.mcpb. A bundle carries its node_modules, and better-sqlite3 is native code, so each
// bundle holds the prebuilt addon of its one platform (better-sqlite3 ships them for linux, darwin and win32 on x64
// and arm64; on linux the musl build too); any other platform is refused with the reason, before anything is built.
// The bundle's server is the packed package (`npm pack`'s files), its production dependencies installed from
// package-lock.json, and manifest.json with this version and platform; @anthropic-ai/mcpb validates and packs it.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { packExtension, validateManifest } from '@anthropic-ai/mcpb';

// Built to dist/scripts/: the repository is two folders up whichever directory npm runs this from.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SQLITE = join(ROOT, 'node_modules/better-sqlite3');
const MCPB_PLATFORMS = { linux: 'linux', darwin: 'darwin', win32: 'win32' } as const;

/** The platform's prebuilt addons better-sqlite3 has (file names in its prebuilds/), or why there is none. */
export function addonsFor(target: string, prebuilds: readonly string[]): { files: string[] } | { error: string } {
  const [os, arch, ...rest] = target.split('-');
  const known = prebuilds.map((f) => f.replace(/\.node$/, '')).filter((t) => !t.startsWith('linuxmusl'));
  const wanted = os && arch && !rest.length ? [`${os}-${arch}`, ...(os === 'linux' ? [`linuxmusl-${arch}`] : [])] : [];
  const files = wanted.filter((t) => prebuilds.includes(`${t}.node`)).map((t) => `${t}.node`);
  if (!(os! in MCPB_PLATFORMS) || !files.length)
    return {
      error: `no prebuilt better-sqlite3 addon for ${target}: an .mcpb bundle carries native code for one platform, and better-sqlite3 ships it for ${known.join(', ')}; build for one of those (npm run bundle -- --platform ${known[0] ?? 'linux-x64'})`,
    };
  return { files };
}

function npm(args: string[], cwd: string): string {
  // npm is npm.cmd on Windows, which only a shell runs.
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    shell: process.platform === 'win32',
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { platform: { type: 'string' }, out: { type: 'string' } } });
  const target = values.platform ?? `${process.platform}-${process.arch}`;
  const addons = addonsFor(target, readdirSync(join(SQLITE, 'prebuilds')));
  if ('error' in addons) throw new Error(addons.error);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const outDir = resolve(values.out ?? ROOT);
  const stage = mkdtempSync(join(tmpdir(), 'svc-bundle-'));
  try {
    // The package's own files, as `npm pack` would pack them (dist/ is built by `npm run bundle`).
    const packed = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT)) as {
      files: { path: string }[];
    }[];
    for (const { path } of packed[0]!.files) {
      mkdirSync(dirname(join(stage, path)), { recursive: true });
      cpSync(join(ROOT, path), join(stage, path));
    }
    cpSync(join(ROOT, 'package-lock.json'), join(stage, 'package-lock.json'));
    npm(['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], stage);
    // better-sqlite3's sources and every other platform's addon stay out; a compiled build/ would be loaded first.
    const sqlite = join(stage, 'node_modules/better-sqlite3');
    for (const dir of ['build', 'deps', 'src']) rmSync(join(sqlite, dir), { recursive: true, force: true });
    for (const f of readdirSync(join(sqlite, 'prebuilds')))
      if (!addons.files.includes(f)) rmSync(join(sqlite, 'prebuilds', f));
    rmSync(join(stage, 'package-lock.json'));
    const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as {
      version: string;
      compatibility: { platforms: string[] };
    };
    manifest.version = pkg.version;
    manifest.compatibility.platforms = [target.split('-')[0]!];
    writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    if (!validateManifest(join(stage, 'manifest.json'))) throw new Error('manifest.json does not validate (see above)');
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, `svc-${pkg.version}-${target}.mcpb`);
    if (existsSync(file)) rmSync(file);
    if (!(await packExtension({ extensionPath: stage, outputPath: file, silent: true })))
      throw new Error(`mcpb could not pack ${file}`);
    process.stdout.write(`${file}\n`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`npm run bundle: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
