// `svc posts import FILE` (a JSON array or NDJSON of posts; upserts by id) and `svc posts list`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parsePostsFile, PostsFileError } from '../host/posts.js';
import { CliError, parse, withApp } from './common.js';
import { importPosts, listPosts } from '../store/posts.js';

const USAGE = `usage: svc posts import FILE    load posts (JSON array or NDJSON) into the host's post store, replacing posts with the same id
       svc posts list           id, status, author, url of every post
`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {});
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [sub, file, ...extra] = positionals;
  if (extra.length) throw new CliError(`unexpected argument "${extra[0]}"\n${USAGE}`);
  if (sub === 'import') {
    if (!file) throw new CliError(`posts import: FILE is required\n${USAGE}`);
    const path = resolve(file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 1);
    }
    let posts;
    try {
      posts = parsePostsFile(text);
    } catch (err) {
      if (err instanceof PostsFileError) throw new CliError(`${path}: ${err.message}`, 1);
      throw err;
    }
    await withApp(values, (app) => {
      const n = importPosts(app.store, posts);
      process.stdout.write(`imported ${n} post${n === 1 ? '' : 's'} from ${path}\n`);
    });
    return 0;
  }
  if (sub === 'list') {
    if (file) throw new CliError(`unexpected argument "${file}"\n${USAGE}`);
    await withApp(values, (app) => {
      for (const p of listPosts(app.store)) process.stdout.write(`${p.id}\t${p.status}\t${p.author}\t${p.url}\n`);
    });
    return 0;
  }
  throw new CliError(sub ? `posts: unknown subcommand "${sub}"\n${USAGE}` : USAGE);
}
