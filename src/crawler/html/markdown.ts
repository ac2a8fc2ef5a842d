// A page as Markdown, built in the extractor's one streaming pass (it calls open/close/text as htmlparser2 reads),
// so that an assistant can read a stored page without the network: headings (with the anchor each can be reached
// by), paragraphs, lists, code, tables and links as [text](absolute url). The outline records where each heading
// starts in the Markdown, so one section is a slice of it. Pure: no I/O.
import type { OutlineEntry } from '../../model/page-content.js';
import { collapseWhitespace } from './text.js';

/** Headings kept in a page's outline. */
const MAX_OUTLINE = 500;
/** A <br>: kept through whitespace collapsing, then made a line break. */
const BR = '\uE001';
const BR_RE = /\s*\uE001\s*/g;
const NON_SPACE = /\S/;
/** A heading's trailing permalink sign (e.g. "Title #"), which is navigation, not its text. */
const PERMALINK_TAIL = /\s*[#¶§🔗]$/u;
const HEADING_LEVEL: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
/** Elements whose end closes a paragraph (and whose start opens a new one). */
const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'aside',
  'header',
  'footer',
  'nav',
  'address',
  'figure',
  'figcaption',
  'dl',
  'dt',
  'dd',
  'form',
  'fieldset',
  'details',
  'summary',
  'center',
  'body',
]);
const INLINE_CODE = new Set(['code', 'kbd', 'samp', 'tt']);

interface List {
  ordered: boolean;
  n: number;
}

interface Table {
  rows: string[][];
  row: string[] | null;
  /** The open cell's inline buffer starts here. */
  cellOpen: boolean;
}

export interface PageMarkdownResult {
  markdown: string;
  outline: OutlineEntry[];
}

/** Builds a page's Markdown from the parser's events; `resolve` makes an href absolute (null: not a link). */
export class MarkdownBuilder {
  private out = '';
  private inline = '';
  private readonly outline: OutlineEntry[] = [];
  private readonly usedAnchors = new Set<string>();
  private readonly lists: List[] = [];
  /** The list item whose marker the next block carries. */
  private itemMarker: string | null = null;
  private quoteDepth = 0;
  private preDepth = 0;
  private pre = '';
  private table: Table | null = null;
  private tableDepth = 0;
  private heading: { level: number; anchor: string | null } | null = null;
  /** The last id opened with no text since: a heading without one is reached by it (a section's id). */
  private pendingId: string | null = null;
  private link: { start: number; href: string } | null = null;
  private codeStart = -1;
  private full = false;
  private prevInList = false;

  constructor(
    private readonly maxChars: number,
    private readonly resolve: (href: string) => string | null,
  ) {}

  open(name: string, attrs: Record<string, string>): void {
    const id = attrs.id || (name === 'a' ? attrs.name : undefined);
    if (id) {
      if (this.heading && this.heading.anchor === null) this.heading.anchor = id;
      else this.pendingId = id;
    }
    if (this.preDepth) {
      if (name === 'pre') this.preDepth++;
      else if (name === 'br') this.pre += '\n';
      return;
    }
    const level = HEADING_LEVEL[name];
    if (level !== undefined) {
      this.block();
      this.heading = { level, anchor: attrs.id || this.pendingId };
      return;
    }
    switch (name) {
      case 'a': {
        const href = attrs.href === undefined || this.heading ? null : this.resolve(attrs.href);
        this.link = href ? { start: this.inline.length, href } : null;
        return;
      }
      case 'br':
        this.inline += this.table?.cellOpen ? ' ' : BR;
        return;
      case 'pre':
        this.block();
        this.preDepth = 1;
        this.pre = '';
        return;
      case 'ul':
      case 'ol':
        this.block();
        this.lists.push({ ordered: name === 'ol', n: Number(attrs.start) || 1 });
        return;
      case 'li': {
        this.block();
        const list = this.lists[this.lists.length - 1];
        this.itemMarker = list?.ordered ? `${list.n++}. ` : '- ';
        return;
      }
      case 'blockquote':
        this.block();
        this.quoteDepth++;
        return;
      case 'hr':
        this.block();
        this.emit('---');
        return;
      case 'table':
        if (this.table) {
          this.tableDepth++;
          return;
        }
        this.block();
        this.table = { rows: [], row: null, cellOpen: false };
        this.tableDepth = 1;
        return;
      case 'tr':
        if (this.table && this.tableDepth === 1) {
          this.endRow();
          this.table.row = [];
        }
        return;
      case 'td':
      case 'th':
        if (this.table && this.tableDepth === 1) {
          this.endCell();
          this.table.row ??= [];
          this.table.cellOpen = true;
          this.inline = '';
        } else this.inline += ' ';
        return;
    }
    if (INLINE_CODE.has(name)) {
      if (this.codeStart < 0) {
        this.codeStart = this.inline.length;
        this.inline += '`';
      }
      return;
    }
    if (BLOCK.has(name)) this.block();
  }

  close(name: string): void {
    if (this.preDepth) {
      if (name === 'pre' && --this.preDepth === 0) this.endPre();
      return;
    }
    const level = HEADING_LEVEL[name];
    if (level !== undefined) {
      if (this.heading?.level === level) this.endHeading();
      return;
    }
    switch (name) {
      case 'a':
        this.endLink();
        return;
      case 'ul':
      case 'ol':
        this.block();
        this.lists.pop();
        this.itemMarker = null;
        // The next list is a list of its own.
        if (!this.lists.length) this.prevInList = false;
        return;
      case 'li':
        this.block();
        this.itemMarker = null;
        return;
      case 'blockquote':
        this.block();
        this.quoteDepth = Math.max(0, this.quoteDepth - 1);
        return;
      case 'td':
      case 'th':
        if (this.table && this.tableDepth === 1) this.endCell();
        return;
      case 'tr':
        if (this.table && this.tableDepth === 1) this.endRow();
        return;
      case 'table':
        if (this.table && --this.tableDepth === 0) this.endTable();
        return;
    }
    if (INLINE_CODE.has(name)) {
      this.endCode();
      return;
    }
    if (BLOCK.has(name)) this.block();
  }

  text(data: string): void {
    if (this.full) return;
    if (this.preDepth) {
      this.pre += data;
      return;
    }
    this.inline += data;
    if (this.pendingId !== null && NON_SPACE.test(data)) this.pendingId = null;
  }

  end(): PageMarkdownResult {
    if (this.preDepth) this.endPre();
    if (this.heading) this.endHeading();
    if (this.table) this.endTable();
    this.block();
    return { markdown: this.out, outline: this.outline };
  }

  private endLink(): void {
    const link = this.link;
    this.link = null;
    if (!link) return;
    const raw = this.inline.slice(link.start);
    // Trimmed only: the paragraph's own collapsing evens out the white space inside.
    let text = raw.trim();
    if (!text) return;
    if (text.includes(BR)) text = text.replaceAll(BR, ' ');
    if (text.includes('[') || text.includes(']')) text = text.replace(/[[\]]/g, '\\$&');
    // The spaces around the text stay outside the brackets.
    const lead = raw.length > 0 && raw.charCodeAt(0) <= 32 ? ' ' : '';
    const trail = raw.charCodeAt(raw.length - 1) <= 32 ? ' ' : '';
    this.inline = `${this.inline.slice(0, link.start)}${lead}[${text}](${link.href})${trail}`;
  }

  private endCode(): void {
    if (this.codeStart < 0) return;
    const start = this.codeStart;
    this.codeStart = -1;
    const code = this.inline.slice(start + 1);
    const first = code.search(NON_SPACE);
    if (first < 0) {
      this.inline = this.inline.slice(0, start) + code;
      return;
    }
    // Code that is one link: the link around the code (a link inside backticks would be read as code).
    const link = code.charCodeAt(first) === 91 /* [ */ ? /^\s*\[(.*)\]\((\S*)\)\s*$/s.exec(code) : null;
    if (link) this.inline = `${this.inline.slice(0, start)}[\`${link[1]}\`](${link[2]})`;
    else this.inline += '`';
  }

  private endPre(): void {
    this.preDepth = 0;
    const code = this.pre.replace(/^\n/, '').replace(/\s+$/, '');
    this.pre = '';
    if (!code) return;
    const fence = code.includes('```') ? '~~~' : '```';
    this.emit(`${fence}\n${code}\n${fence}`, true);
  }

  private endHeading(): void {
    const heading = this.heading!;
    this.heading = null;
    const text = collapseWhitespace(this.inline.replaceAll(BR, ' ')).replace(PERMALINK_TAIL, '');
    this.inline = '';
    this.codeStart = -1;
    if (!text) return;
    if (this.table?.cellOpen) {
      this.inline = text;
      return;
    }
    let anchor = heading.anchor;
    if (!anchor || this.usedAnchors.has(anchor)) anchor = this.slug(text);
    const start = this.emit(`${'#'.repeat(heading.level)} ${text}`);
    if (start >= 0 && this.outline.length < MAX_OUTLINE) {
      this.usedAnchors.add(anchor);
      this.outline.push({ level: heading.level, text, anchor, start });
    }
    this.pendingId = null;
  }

  /** An anchor of svc's own for a heading the page gives none: its words, made unique. */
  private slug(text: string): string {
    const base =
      text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 80) || 'section';
    let anchor = base;
    for (let i = 2; this.usedAnchors.has(anchor); i++) anchor = `${base}-${i}`;
    return anchor;
  }

  private endCell(): void {
    const table = this.table!;
    if (!table.cellOpen) return;
    table.cellOpen = false;
    this.endLink();
    this.endCode();
    const cell = collapseWhitespace(this.inline.replaceAll(BR, ' ')).replace(/\|/g, '\\|');
    this.inline = '';
    table.row ??= [];
    table.row.push(cell);
  }

  private endRow(): void {
    const table = this.table!;
    this.endCell();
    if (table.row?.some((c) => c)) table.rows.push(table.row);
    table.row = null;
  }

  private endTable(): void {
    const table = this.table!;
    this.endRow();
    this.table = null;
    this.tableDepth = 0;
    this.inline = '';
    const rows = table.rows;
    if (!rows.length) return;
    const width = Math.max(...rows.map((r) => r.length));
    // One column: a list of lines reads better than a table.
    if (width === 1) {
      for (const r of rows) this.emit(r[0]!);
      return;
    }
    const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
    const lines = [line(rows[0]!), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)];
    this.emit(lines.join('\n'), true);
  }

  /** The paragraph read so far ends. */
  private block(): void {
    if (this.table?.cellOpen) {
      this.inline += ' ';
      return;
    }
    if (this.heading) return;
    this.endLink();
    this.endCode();
    if (!this.inline) return;
    let text = collapseWhitespace(this.inline);
    if (text.includes(BR)) text = text.replace(BR_RE, '\n');
    this.inline = '';
    if (text) this.emit(text);
  }

  /** Appends one block (with its list or quote prefix); answers where it starts, or -1 when the page is full. */
  private emit(block: string, verbatim = false): number {
    if (this.full) return -1;
    const depth = this.lists.length;
    const indent = depth > 1 ? '   '.repeat(depth - 1) : '';
    let prefix = '';
    let rest = indent;
    if (depth) {
      if (this.itemMarker) {
        prefix = indent + this.itemMarker;
        rest = indent + ' '.repeat(this.itemMarker.length);
        this.itemMarker = null;
      } else prefix = rest = `${indent}  `;
    }
    if (this.quoteDepth) {
      const q = '> '.repeat(this.quoteDepth);
      prefix = q + prefix;
      rest = q + rest;
    }
    let text = block;
    if (prefix || rest) {
      const lines = block.split('\n');
      text = lines
        .map((l, i) => (i === 0 ? prefix + l : verbatim && !depth && !this.quoteDepth ? l : rest + l))
        .join('\n');
    }
    // Blocks of one list stay together; any other block is a paragraph of its own.
    const sep = this.out ? (depth && this.prevInList ? '\n' : '\n\n') : '';
    const start = this.out.length + sep.length;
    if (start + text.length > this.maxChars) {
      this.full = true;
      return -1;
    }
    this.out += sep + text;
    this.prevInList = depth > 0;
    return start;
  }
}
