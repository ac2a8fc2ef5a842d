// The tool table in docs/mcp.md is generated from the tool inventory; this fails when the committed table and
// the code disagree, so the docs never describe tools, inputs or hints that tools/list does not publish.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SVC_ABILITIES } from '../../src/abilities/index.js';
import {
  inputSummary,
  renderToolTable,
  TOOL_TABLE_BEGIN,
  TOOL_TABLE_END,
  toolTableBlock,
  withToolTable,
} from '../../src/tools/docs-table.js';
import { TOOLS } from '../../src/tools/index.js';
import { ROOT } from '../support/paths.js';

const table = renderToolTable(TOOLS, SVC_ABILITIES);
const row = (tool: string): string[] =>
  table
    .split('\n')
    .find((l) => l.startsWith(`| \`${tool}\``))!
    .split(' | ');

describe('docs/mcp.md tool table', () => {
  it('is what the code renders (run `npm run docs:tools` to update it)', () => {
    const block = toolTableBlock(readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8'));
    expect(
      block,
      "docs/mcp.md's tool table differs from the tool inventory: run `npm run docs:tools` and commit docs/mcp.md",
    ).toBe(table);
  });

  it('has one row per tool, with the ability, capability and four hints from the code', () => {
    expect(table.split('\n')).toHaveLength(TOOLS.length + 2);
    // destructive, idempotent, closed world; needs manage_options
    expect(row('svc-delete-pages').slice(3)).toEqual(['`manage_options`', '–', '✔', '✔', '– |']);
    // read-only search for any reader
    expect(row('svc-search').slice(1, 4)).toEqual([
      '`svc/search`',
      expect.stringContaining('`terms` string (required)'),
      '`read`',
    ]);
    expect(row('svc-full-crawl')[2]).toBe('none');
    expect(row('svc-full-crawl').at(-1)).toBe('✔ |');
  });

  it('summarises an input schema: kinds, bounds, defaults, required fields, nested objects', () => {
    const search = SVC_ABILITIES.find((a) => a.name === 'svc/search')!;
    expect(inputSummary(search.inputJsonSchema)).toMatch(
      /`search_params` \{`size` integer 1–100 \(default 10\), `from` integer ≥ 0 \(default 0\)/,
    );
    const report = SVC_ABILITIES.find((a) => a.name === 'svc/link-report')!;
    expect(inputSummary(report.inputJsonSchema)).toContain(
      '`reasons` array of one of `not_found`, `forbidden`, `server_error`, `redirect`, `unknown` (1–5 items)',
    );
    const del = SVC_ABILITIES.find((a) => a.name === 'svc/delete-pages')!;
    expect(inputSummary(del.inputJsonSchema)).toBe('`urls` array of URL (1–50 items) (required)');
  });

  it('replaces only the text between the markers, and names a missing marker', () => {
    const doc = `intro\n${TOOL_TABLE_BEGIN}\nold\n${TOOL_TABLE_END}\nafter\n`;
    expect(withToolTable(doc, '| new |')).toBe(`intro\n${TOOL_TABLE_BEGIN}\n| new |\n${TOOL_TABLE_END}\nafter\n`);
    expect(() => toolTableBlock('no markers')).toThrow(/missing the marker <!-- tools:begin/);
    expect(() => toolTableBlock(`${TOOL_TABLE_BEGIN} no end`)).toThrow(/missing the marker <!-- tools:end -->/);
  });
});
