// `svc --version` and `svc -v` print the version of the installed package, as the built command does.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../src/lib/package-version.js';
import { ROOT, SERVER_JS } from '../support/paths.js';

describe('svc --version', () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

  it.each(['--version', '-v'])('%s prints the package version alone on stdout and exits 0', (flag) => {
    if (!existsSync(SERVER_JS)) throw new Error(`${SERVER_JS} is missing: run \`npm run build\` first (npm test does)`);
    const r = spawnSync(process.execPath, [SERVER_JS, flag], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.stderr).toBe('');
  });

  it('is named in the usage', () => {
    const r = spawnSync(process.execPath, [SERVER_JS, '--help'], { encoding: 'utf8' });
    expect(r.stdout).toContain('svc --version');
  });
});

/** The machine's own node when it is older than engines.node (Node 20 on the build machines), else null. */
const OLD_NODE = ((): { bin: string; version: string } | null => {
  const bin = spawnSync('bash', ['-c', 'PATH=/usr/local/bin:/usr/bin:/bin command -v node'], {
    encoding: 'utf8',
  }).stdout.trim();
  const version = bin ? spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim() : '';
  return version && nodeVersionProblem(version) !== null ? { bin, version } : null;
})();

describe('the Node svc needs', () => {
  it('is engines.node of package.json, and an older Node gets one line naming both versions', () => {
    const { engines } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(engines.node).toBe('>=22.19');
    expect(nodeVersionProblem('20.20.2')).toBe('Node >=22.19 is needed; this is Node 20.20.2');
    expect(nodeVersionProblem('22.18.9')).toBe('Node >=22.19 is needed; this is Node 22.18.9');
    for (const ok of ['22.19.0', '22.23.3', '24.21.0', '26.10.0', 'v23.0.0'])
      expect(nodeVersionProblem(ok), ok).toBeNull();
    expect(nodeVersionProblem(process.versions.node)).toBeNull();
  });

  it('lets every Node through when the range is not a plain minimum', () => {
    expect(nodeVersionProblem('20.0.0', '^22 || ^24')).toBeNull();
    expect(nodeVersionProblem('20.0.0', '')).toBeNull();
    expect(nodeVersionProblem('20.0.0', '>= 22')).toBe('Node >=22 is needed; this is Node 20.0.0');
  });

  it.runIf(OLD_NODE)('is checked before a command loads: svc on an older Node says so and exits 1', () => {
    const r = spawnSync(OLD_NODE!.bin, [SERVER_JS, 'report'], { encoding: 'utf8' });
    expect(r.stderr).toBe(`svc: Node >=22.19 is needed; this is Node ${OLD_NODE!.version}\n`);
    expect(r.status).toBe(1);
  });
});
