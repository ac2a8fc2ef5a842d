// `svc posts import FILE` (a JSON array or NDJSON of posts; upserts by id), `svc posts delete ID…` and
// `svc posts list`. Import and delete queue the live update's crawl of the changed posts' URLs.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parsePostsFile, PostsFileError } from '../cms/posts.js';
import { CliError, intOption, parse, withApp } from './common.js';
import { listPosts } from '../store/posts.js';
import { applyPostChange, type PostChangeResult } from '../app/posts.js';
import type { Terminal } from './terminal.js';

const USAGE = `usage: svc posts import FILE    load posts (JSON array or NDJSON) into the host's post store, replacing posts with the same id
       svc posts delete ID…     delete posts by id
       svc posts list           id, status, author, url of every post

Live update (host.live_update, on by default): import and delete queue one manual crawl of the URLs of the
posts that changed (old and new URL when a URL changed). It waits in the database until svc serve runs it.
`;

/** One line on stderr about the live update's crawl, when there is something to say. */
function sayLiveUpdate(r: PostChangeResult, io: Terminal): void {
  if (r.crawl) {
    const what =
      r.crawl.mode === 'manual'
        ? `${r.crawl.urls?.length ?? 0} URL${r.crawl.urls?.length === 1 ? '' : 's'}`
        : 'a full crawl: too many URLs for one manual crawl';
    io.stderr.write(
      `svc: live update: ${r.urls.length} changed URL${r.urls.length === 1 ? '' : 's'} queued in crawl ${r.crawl.id} (${what}); \`svc serve\` runs it\n`,
    );
  } else if (r.notQueued) {
    io.stderr.write(
      `svc: live update: ${r.urls.length} changed URL${r.urls.length === 1 ? '' : 's'} not queued: ${r.notQueued}\n`,
    );
  }
}

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values, positionals } = parse(argv, {});
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const [sub, file, ...extra] = positionals;
  if (extra.length && sub !== 'delete') throw new CliError(`unexpected argument "${extra[0]}"\n${USAGE}`);
  if (sub === 'import') {
    if (!file) throw new CliError(`posts import: FILE is required\n${USAGE}`);
    const path = resolve(file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 1);
    }
    let posts: ReturnType<typeof parsePostsFile>;
    try {
      posts = parsePostsFile(text);
    } catch (err) {
      if (err instanceof PostsFileError) throw new CliError(`${path}: ${err.message}`, 1);
      throw err;
    }
    const n = posts.length;
    await withApp(values, io, async (app) => {
      const r = await applyPostChange(app, { upsert: posts });
      io.stdout.write(`imported ${n} post${n === 1 ? '' : 's'} from ${path}\n`);
      sayLiveUpdate(r, io);
    });
    return 0;
  }
  if (sub === 'delete') {
    const ids = positionals.slice(1).map((a) => intOption('ID', a, 1, Number.MAX_SAFE_INTEGER)!);
    if (!ids.length) throw new CliError(`posts delete: give the id of at least one post\n${USAGE}`);
    await withApp(values, io, async (app) => {
      const r = await applyPostChange(app, { remove: ids });
      const missing = ids.length - r.removed;
      io.stdout.write(
        `deleted ${r.removed} post${r.removed === 1 ? '' : 's'}${missing ? ` (${missing} not found)` : ''}\n`,
      );
      sayLiveUpdate(r, io);
      if (missing && !r.removed) throw new CliError(`no post ${ids.join(', ')}: svc posts list shows the ids`, 1);
    });
    return 0;
  }
  if (sub === 'list') {
    if (file) throw new CliError(`unexpected argument "${file}"\n${USAGE}`);
    await withApp(values, io, async (app) => {
      for (const p of await listPosts(app.store.sql)) io.stdout.write(`${p.id}\t${p.status}\t${p.author}\t${p.url}\n`);
    });
    return 0;
  }
  throw new CliError(sub ? `posts: unknown subcommand "${sub}"\n${USAGE}` : USAGE);
}
