// The docs name files of the tree (`src/…`, `test/…`, `bench/…`, `docs/…`, `scripts/…`) and, in the walks of
// docs/architecture.md, the function each step runs (`src/….ts` `name`). This fails, naming the page and the
// reference, when a rename or a move leaves a page pointing at a file or a function that is not there.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.js';

const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** A path of the tree as prose writes it: not inside a URL or a longer path; globs and placeholders allowed. */
const PATH_RE = /(?<![\w./~-])((?:src|test|bench|docs|scripts)\/[\w./*-]*)/g;

/** The paths a page names (a trailing full stop or comma is the sentence's, not the path's). */
function namedPaths(text: string): string[] {
  return [...text.matchAll(PATH_RE)].map((m) => m[1]!.replace(/[.,]+$/, ''));
}

/** Whether a named path exists; `*` in its last part matches any run of characters, as a shell glob would. */
function pathExists(path: string): boolean {
  if (!path.includes('*')) return existsSync(join(ROOT, path));
  const dir = posix.dirname(path);
  if (dir.includes('*')) return false;
  const re = new RegExp(
    `^${posix
      .basename(path)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  return existsSync(join(ROOT, dir)) && readdirSync(join(ROOT, dir)).some((f) => re.test(f));
}

/** A walk's step: `src/….ts` then `name` or `Class.method` (the function the step runs). */
const STEP_RE = /`((?:src|test|bench|scripts)\/[\w./-]+\.ts)` `([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)`/g;

function namedFunctions(text: string): { file: string; name: string }[] {
  return [...text.matchAll(STEP_RE)].map((m) => ({ file: m[1]!, name: m[2]! }));
}

/** Whether a TypeScript source defines `name`: a function, class, constant, or (indented) a method. */
function defines(source: string, name: string): boolean {
  const n = name.replace(/\$/g, '\\$');
  return (
    new RegExp(`(?:function\\*?|class|const|let|interface|type)\\s+${n}\\b`).test(source) ||
    new RegExp(`^\\s+(?:(?:public|private|protected|static|async|readonly|get|set)\\s+)*${n}\\s*[(<=:]`, 'm').test(
      source,
    )
  );
}

describe('paths and functions the docs name', () => {
  it('the checks see what they should (a named path, a glob, a step of a walk, a method)', () => {
    expect(namedPaths('see `src/store/sql.ts`, or src/abilities/svc-*.ts. Not https://x.org/src/a.ts')).toEqual([
      'src/store/sql.ts',
      'src/abilities/svc-*.ts',
    ]);
    expect(pathExists('src/abilities/svc-*.ts')).toBe(true);
    expect(pathExists('src/store/no-such-file.ts')).toBe(false);
    expect(namedFunctions('1. `src/cli/crawl.ts` `run`: why')).toEqual([{ file: 'src/cli/crawl.ts', name: 'run' }]);
    const src = 'export class A {\n  async start(x: number) {}\n}\nexport function go() {}';
    expect(defines(src, 'start') && defines(src, 'go') && defines(src, 'A')).toBe(true);
    expect(defines(src, 'stop')).toBe(false);
  });

  for (const page of PAGES) {
    it(`${page}: every path it names exists`, () => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      const missing = [...new Set(namedPaths(text))].filter((p) => !pathExists(p));
      expect(missing, `${page} names paths that do not exist`).toEqual([]);
    });

    it(`${page}: every file:function step names a function the file defines`, () => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      const wrong = namedFunctions(text)
        .filter(({ file, name }) => {
          if (!existsSync(join(ROOT, file))) return true;
          const source = readFileSync(join(ROOT, file), 'utf8');
          return !name.split('.').every((part) => defines(source, part));
        })
        .map(({ file, name }) => `${file} ${name}`);
      expect(wrong, `${page} names functions its files do not define`).toEqual([]);
    });
  }
});
