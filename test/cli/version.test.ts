// `svc --version` and `svc -v` print the version of the installed package, as the built command does.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SERVER_JS } from '../paths.js';

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
