import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savePages } from '../../src/store/sqlite/writes.js';
import { Store } from '../../src/store/sqlite/store.js';
import { CliError } from '../../src/cli/common.js';
import { formatResults, highlightForTerminal, run } from '../../src/cli/search.js';
import { BASE, HOST, searchPage as page } from '../support/writes.js';
import { testTerminal } from '../support/cli.js';

let dir: string;
let config: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-search-cli-'));
  config = join(dir, 'svc.json');
  writeFileSync(
    config,
    JSON.stringify({ data_dir: join(dir, 'data'), targets: [{ host: HOST, scheme: 'http' }], log_level: 'silent' }),
  );
  const store = new Store(join(dir, 'data', 'svc.db'));
  savePages(store, [
    page('/vacuum', {
      title: 'VACUUM',
      content: 'VACUUM reclaims storage <fast> & safe.',
      tags: ['public', 'post_type/page'],
    }),
    page('/fi', { title: 'Imurointi', content: 'vacuum suomeksi', language: 'fi' }),
    ...Array.from({ length: 12 }, (_, i) => page(`/many/${i}`, { title: `Many ${i}`, content: 'repeated filler' })),
  ]);
  store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function svcSearch(...args: string[]): Promise<string> {
  const t = testTerminal();
  expect(await run([...args, '--config', config], t.io)).toBe(0);
  return t.stdout();
}

describe('svc search', () => {
  it('--json prints the results object {total, duration, hits}', async () => {
    const r = JSON.parse(await svcSearch('vacuum', '--json')) as {
      total: number;
      duration: number;
      hits: { url: string }[];
    };
    expect(Object.keys(r).sort()).toEqual(['duration', 'hits', 'total']);
    expect(r.total).toBe(2);
    expect(r.hits[0]!.url).toBe(`${BASE}/vacuum`);
  });

  it('passes --lang, --tag (repeatable), --size and --from through', async () => {
    expect(
      JSON.parse(await svcSearch('vacuum', '--lang', 'fi', '--json')).hits.map((h: { url: string }) => h.url),
    ).toEqual([`${BASE}/fi`]);
    expect(JSON.parse(await svcSearch('vacuum', '--tag', 'public', '--tag', 'post_type/page', '--json')).total).toBe(1);
    const paged = JSON.parse(await svcSearch('filler', '--size', '5', '--from', '10', '--json'));
    expect(paged.total).toBe(12);
    expect(paged.hits).toHaveLength(2);
  });

  it('prints readable results by default, with the matches marked', async () => {
    const text = await svcSearch('reclaims', 'storage');
    expect(text).toContain('1 result for "reclaims storage"');
    expect(text).toContain(`1. VACUUM\n   ${BASE}/vacuum`);
    expect(text).toContain('*reclaims* *storage* <fast> & safe.');
    const many = await svcSearch('filler', '--size', '3');
    expect(many).toContain('12 results for "filler", showing 1–3');
    expect(many).toContain('More: --from 3');
    expect(await svcSearch('nothingmatches')).toContain('0 results');
  });

  it('refuses bad options with the option named', async () => {
    await expect(run(['vacuum', '--size', '0', '--config', config], testTerminal().io)).rejects.toThrow(
      /--size: must be a whole number from 1 to 100/,
    );
    await expect(run(['--config', config], testTerminal().io)).rejects.toBeInstanceOf(CliError);
    await expect(run(['x', '--lang', '', '--config', config], testTerminal().io)).rejects.toThrow(/^lang: /);
    await expect(run(['x', '--facet', 'color', '--config', config], testTerminal().io)).rejects.toThrow(
      '--facet: must be one of lang, tags, path (not "color")',
    );
    await expect(run(['x', '--path', 'docs', '--config', config], testTerminal().io)).rejects.toThrow(
      /^path_prefix: must be a path/,
    );
  });

  it('shows corrections, suggestions, partial matches and facets', () => {
    const hit = {
      score: 1,
      title: 'T',
      url: 'http://h/a',
      language: null,
      highlight: '',
      tags: [],
      created: null,
      modified: null,
      customFields: {},
      matched_terms: ['garbage'],
    };
    const out = formatResults(
      'garbaje x',
      {
        total: 1,
        duration: 0.1,
        hits: [hit],
        corrected_terms: [{ from: 'garbaje', to: 'garbage' }],
        did_you_mean: 'garbage y',
        facets: { path: [{ value: '/docs/', count: 1 }] },
      },
      0,
    );
    expect(out).toContain('Showing results for: garbage (not garbaje)');
    expect(out).toContain('Did you mean: garbage y');
    expect(out).toContain('matches only garbage');
    expect(out).toContain('path: /docs/ (1)');
  });

  it('renders highlights for a terminal', () => {
    expect(highlightForTerminal('a <em>b</em> &lt;c&gt;', true)).toBe('a \x1b[1mb\x1b[22m <c>');
    expect(formatResults('q', { total: 0, duration: 0.1, hits: [] }, 0)).toContain('0 results for "q"');
    expect(formatResults('q', { total: 0, duration: 0.1, hits: [] }, 0)).toContain('Fewer or shorter words find more.');
  });
});
