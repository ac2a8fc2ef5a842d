// Crawl records: created queued, moved through running to an end state, read newest first.
import type { CrawlMode, CrawlRecord, CrawlStats, CrawlStatus } from '../model/types.js';
import type { Store } from './store.js';

interface CrawlRow {
  id: number;
  mode: CrawlMode;
  status: CrawlStatus;
  urls: string | null;
  started_at: string | null;
  finished_at: string | null;
  pages: number;
  links: number;
  errors: number;
  stats: string | null;
  error: string | null;
}

function toRecord(r: CrawlRow): CrawlRecord {
  const stats: CrawlStats = { pages: r.pages, links: r.links, errors: r.errors };
  if (r.stats) stats.targets = JSON.parse(r.stats) as CrawlStats['targets'];
  const rec: CrawlRecord = { id: r.id, mode: r.mode, status: r.status, startedAt: r.started_at, finishedAt: r.finished_at, stats };
  if (r.urls) rec.urls = JSON.parse(r.urls) as string[];
  if (r.error) rec.error = r.error;
  return rec;
}

/**
 * Creates a queued crawl unless one of the project is queued or running; returns null then.
 * The check and the insert share one IMMEDIATE transaction, so two starts at once cannot both win.
 */
export function createCrawl(store: Store, project: string, mode: CrawlMode, urls?: string[]): CrawlRecord | null {
  return store.tx(() => {
    if (activeCrawl(store, project)) return null;
    const row = store
      .prepare(`INSERT INTO crawls (project, mode, status, urls, started_at, owner_pid) VALUES (?, ?, 'queued', ?, ?, ?) RETURNING *`)
      .get(project, mode, urls ? JSON.stringify(urls) : null, new Date().toISOString(), process.pid) as CrawlRow;
    return toRecord(row);
  });
}

export function setCrawlStatus(store: Store, id: number, status: CrawlStatus, error?: string): void {
  const ended = status === 'completed' || status === 'stopped' || status === 'failed';
  store
    .prepare(`UPDATE crawls SET status = ?, finished_at = CASE WHEN ? THEN ? ELSE finished_at END, error = COALESCE(?, error) WHERE id = ?`)
    .run(status, ended ? 1 : 0, new Date().toISOString(), error ?? null, id);
}

export function updateCrawlStats(store: Store, id: number, stats: CrawlStats): void {
  store
    .prepare('UPDATE crawls SET pages = ?, links = ?, errors = ?, stats = ? WHERE id = ?')
    .run(stats.pages, stats.links, stats.errors, stats.targets ? JSON.stringify(stats.targets) : null, id);
}

export function getCrawl(store: Store, project: string, id: number): CrawlRecord | null {
  const row = store.prepare('SELECT * FROM crawls WHERE project = ? AND id = ?').get(project, id) as CrawlRow | undefined;
  return row ? toRecord(row) : null;
}

export function listCrawls(store: Store, project: string, limit: number, offset: number): CrawlRecord[] {
  const rows = store.prepare('SELECT * FROM crawls WHERE project = ? ORDER BY id DESC LIMIT ? OFFSET ?').all(project, limit, offset) as CrawlRow[];
  return rows.map(toRecord);
}

/** The newest queued or running crawl of the project. */
export function activeCrawl(store: Store, project: string): CrawlRecord | null {
  const row = store.prepare(`SELECT * FROM crawls WHERE project = ? AND status IN ('queued','running') ORDER BY id DESC LIMIT 1`).get(project) as
    | CrawlRow
    | undefined;
  return row ? toRecord(row) : null;
}

/** The last full crawl with status completed (spec: partial/manual/stopped/failed never change it): when it finished, its stats JSON. */
export function lastFullCrawlRow(store: Store, project: string): { finished_at: string; stats: string | null } | undefined {
  return store
    .prepare(`SELECT finished_at, stats FROM crawls WHERE project = ? AND mode = 'full' AND status = 'completed' ORDER BY finished_at DESC, id DESC LIMIT 1`)
    .get(project) as { finished_at: string; stats: string | null } | undefined;
}

/** When the last completed full crawl finished. */
export function lastFullCrawl(store: Store, project: string): string | null {
  return lastFullCrawlRow(store, project)?.finished_at ?? null;
}
