// The layers of src/, bottom up, and what each may import. Every import of every src file — `import`,
// `import type`, `export … from` and `import()` — is read and checked against this table, so an upward import,
// or one that skips past the layer beneath into another's internals, fails here naming the file and the line.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.js';

/** Folder (or root file) → the layers it may import, besides itself. */
const LAYERS: Record<string, readonly string[]> = {
  lib: [],
  model: ['lib'],
  store: ['lib', 'model'],
  crawler: ['lib', 'model'],
  // The link report's one renderer (pure data -> HTML), for the report file, the console and the MCP App.
  'report-view': ['lib', 'model'],
  backend: ['lib', 'model', 'store', 'crawler', 'report-view'],
  cms: ['lib', 'model'],
  auth: ['lib', 'model', 'store', 'cms'],
  abilities: ['lib', 'model', 'backend', 'cms', 'auth'],
  tools: ['lib', 'model', 'abilities'],
  mcp: ['lib', 'model', 'abilities', 'tools', 'report-view'],
  http: ['lib', 'model', 'backend', 'cms', 'auth', 'abilities', 'mcp'],
  // The top: the composition root, the commands and the demo build everything.
  app: ['*'],
  cli: ['*'],
  demo: ['*'],
  'server.ts': ['*'],
};

const SRC = join(ROOT, 'src');
const IMPORT_RE = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The layer a path under src/ belongs to: its first folder, or the file itself at the top. */
function layerOf(pathInSrc: string): string {
  const parts = pathInSrc.split('/');
  return parts.length === 1 ? parts[0]!.replace(/\.js$/, '.ts') : parts[0]!;
}

interface Violation {
  file: string;
  line: number;
  specifier: string;
  why: string;
}

/** Every import of one file (given by its path under src/ and its text) that the table does not allow. */
function checkImports(pathInSrc: string, text: string): Violation[] {
  const from = layerOf(pathInSrc);
  const allowed = LAYERS[from];
  const out: Violation[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[2]!;
    if (!spec.startsWith('.')) continue;
    const line = text.slice(0, m.index).split('\n').length;
    const target = posix.normalize(posix.join(posix.dirname(pathInSrc), spec));
    if (target.startsWith('..')) {
      out.push({ file: pathInSrc, line, specifier: spec, why: 'reaches outside src/' });
      continue;
    }
    const to = layerOf(target);
    if (to === from) continue;
    if (!allowed) {
      out.push({ file: pathInSrc, line, specifier: spec, why: `"${from}" is not in the layer table` });
    } else if (!(to in LAYERS)) {
      out.push({ file: pathInSrc, line, specifier: spec, why: `"${to}" is not in the layer table` });
    } else if (!allowed.includes('*') && !allowed.includes(to)) {
      out.push({
        file: pathInSrc,
        line,
        specifier: spec,
        why: `${from} may import ${allowed.join(', ') || 'nothing of src'}, not ${to}`,
      });
    }
  }
  return out;
}

describe('layers', () => {
  it('no src file imports upward or past the layer beneath it', () => {
    const violations = sourceFiles(SRC).flatMap((f) =>
      checkImports(relative(SRC, f).split('\\').join('/'), readFileSync(f, 'utf8')),
    );
    expect(violations.map((v) => `src/${v.file}:${v.line} imports '${v.specifier}': ${v.why}`)).toEqual([]);
  });

  it('every folder of src is in the table', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).map((e) => e.name);
    expect(folders.filter((f) => !(f in LAYERS))).toEqual([]);
  });

  it('catches an upward import in every form: import, import type, export from, import()', () => {
    const forms = [
      `import { openStore } from '../store/store.js';`,
      `import type { Store } from '../store/store.js';`,
      `export { openStore } from '../store/store.js';`,
      `const m = await import('../store/store.js');`,
    ];
    for (const form of forms) {
      const v = checkImports('model/example.ts', `// a comment\n${form}\n`);
      expect(v).toEqual([
        { file: 'model/example.ts', line: 2, specifier: '../store/store.js', why: 'model may import lib, not store' },
      ]);
    }
  });

  it('catches a skip past the layer beneath (a tool opening the store, the crawler writing SQL)', () => {
    expect(checkImports('tools/x.ts', `import { Store } from '../store/store.js';`)[0]?.why).toBe(
      'tools may import lib, model, abilities, not store',
    );
    expect(checkImports('crawler/x.ts', `import { savePages } from '../store/pages.js';`)[0]?.why).toBe(
      'crawler may import lib, model, not store',
    );
    expect(checkImports('abilities/x.ts', `import { getPost } from '../store/posts.js';`)).toHaveLength(1);
    expect(checkImports('cli/x.ts', `import { getPost } from '../store/posts.js';`)).toEqual([]);
  });

  it('a file of the layer table imports within its own folder freely', () => {
    expect(
      checkImports(
        'crawler/crawl.ts',
        `import { Fetcher } from './fetcher.js';\nimport type { X } from '../model/types.js';`,
      ),
    ).toEqual([]);
  });
});
