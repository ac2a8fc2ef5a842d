import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/cli/load-config.js';
import { problemsOf } from '../support/config-problems.js';

describe('config', () => {
  it('fills every default from an empty object', () => {
    const c = parseConfig({});
    expect(c.project.public_token).toBe('demo1234:eu-north-1');
    expect(c.host).toMatchObject({ version: '6.9', rest_root: '/wp-json' });
    expect(c.server).toMatchObject({ host: '127.0.0.1', port: 8787 });
    expect(c.api.base_url).toBeNull();
  });

  it('applies target defaults', () => {
    const c = parseConfig({ targets: [{ host: 'Example.ORG' }] });
    expect(c.targets[0]).toMatchObject({
      host: 'example.org',
      scheme: 'https',
      start_paths: ['/'],
      use_sitemap: true,
      walk_query_strings: true,
      track_links: 'pdf',
      respect_robots_txt: true,
      respect_robots_meta: true,
      concurrency: 5,
      request_timeout_ms: 10000,
    });
    expect(c.targets[0]!.walk_links).toBeUndefined();
  });

  it('names the field and the rule for each bad field', () => {
    const problems = problemsOf({
      project: { public_token: 'nocolon' },
      targets: [{ host: 'http://x.org/', concurrency: 0, track_links: 'some', deny_patterns: ['('] }],
      extra: 1,
    });
    const text = problems.join('\n');
    expect(text).toContain('project.public_token: must have the form <id>:<region>');
    expect(text).toContain('targets[0].host: must be a host name or host:port');
    expect(text).toMatch(/targets\[0\]\.concurrency: .*>=\s?1/);
    expect(text).toContain('targets[0].track_links');
    expect(text).toContain('targets[0].deny_patterns[0]: must be a valid regular expression');
    expect(text).toContain('(root): unknown field(s) "extra"');
  });

  it('reads a file, --site and environment overrides', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
    const file = join(dir, 'svc.json');
    writeFileSync(file, JSON.stringify({ targets: [{ host: '127.0.0.1:9', scheme: 'http' }] }));
    const c = loadConfig({ configPath: file, env: { SVC_DATA_DIR: '/tmp/x', PORT: '9999' } });
    expect(c.targets[0]!.host).toBe('127.0.0.1:9');
    expect(c.data_dir).toBe('/tmp/x');
    expect(c.server.port).toBe(9999);
    const s = loadConfig({ site: 'http://127.0.0.1:8080/docs/', env: {} });
    expect(s.targets).toEqual([
      expect.objectContaining({ host: '127.0.0.1:8080', scheme: 'http', start_paths: ['/docs/'], track_links: 'all' }),
    ]);
    expect(() => loadConfig({ configPath: join(dir, 'missing.json'), env: {} })).toThrow(/cannot read/);
    writeFileSync(file, '{ not json');
    expect(() => loadConfig({ configPath: file, env: {} })).toThrow(/not valid JSON/);
  });
});
