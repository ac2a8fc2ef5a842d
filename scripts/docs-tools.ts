// `npm run docs:tools`: rewrites the generated tool table in docs/mcp.md from the tool inventory, so a change to
// a tool's ability (input, capability, hints) reaches the docs with one command.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SVC_ABILITIES } from '../src/abilities/index.js';
import { renderToolTable, withToolTable } from '../src/tools/docs-table.js';
import { TOOLS } from '../src/tools/index.js';

// Built to dist/scripts/, so the repository is two folders up whichever directory npm runs this from.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const file = join(ROOT, 'docs/mcp.md');
const before = readFileSync(file, 'utf8');
const after = withToolTable(before, renderToolTable(TOOLS, SVC_ABILITIES));
if (after === before) {
  console.log('docs/mcp.md: the tool table is up to date');
} else {
  writeFileSync(file, after);
  console.log('docs/mcp.md: the tool table was rewritten');
}
