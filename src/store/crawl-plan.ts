// What the workers of a shared crawl tell each other beside its frontier (frontier.ts): the lead's plan, which lets
// others join; each worker's report on its share, replaced with every heartbeat; and the crawl's link and error
// counts, taken from the store so a URL fetched by two workers counts once.
import { isBroken, type LinkOutcomeReason } from '../model/link-reasons.js';
import { rowLock, type Sql } from './sql.js';

/** The lead's plan for the crawl (JSON), published once its seeds are in: from then on other workers may join. */
export async function publishPlan(sql: Sql, crawlId: number, plan: string): Promise<void> {
  await sql.rowTx((tx) => tx.run('UPDATE frontier_crawls SET plan = ? WHERE crawl_id = ?', [plan, crawlId]));
}

/** A running crawl of the project whose frontier is open and planned (oldest first): one a worker may join. */
export async function joinableCrawl(sql: Sql, project: string): Promise<{ crawlId: number; plan: string } | null> {
  const row = await sql.get<{ crawlId: number; plan: string }>(
    `SELECT f.crawl_id AS "crawlId", f.plan FROM frontier_crawls f JOIN crawls c ON c.id = f.crawl_id
      WHERE c.project = ? AND c.status = 'running' AND f.finished_at IS NULL AND f.plan IS NOT NULL ORDER BY f.crawl_id LIMIT 1`,
    [project],
  );
  return row ?? null;
}

/**
 * A worker's report on its share of the crawl (JSON), replaced with each heartbeat. Nothing once the frontier is
 * dropped (the crawl has ended): the crawl's row, held while the report is written, keeps a late report out.
 */
export async function reportWorker(
  sql: Sql,
  o: { crawlId: number; worker: string; report: string; now?: number },
): Promise<void> {
  await sql.rowTx(async (tx) => {
    if (!(await tx.get(`SELECT 1 AS open FROM frontier_crawls WHERE crawl_id = ?${rowLock(tx, 'share')}`, [o.crawlId])))
      return;
    await tx.run(
      `INSERT INTO frontier_workers (crawl_id, worker, report, seen_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (crawl_id, worker) DO UPDATE SET report = excluded.report, seen_at = excluded.seen_at`,
      [o.crawlId, o.worker, o.report, o.now ?? Date.now()],
    );
  });
}

/** Every worker's last report on the crawl, but the one named (the caller's own). */
export async function workerReports(
  sql: Sql,
  crawlId: number,
  except = '',
): Promise<{ worker: string; report: string }[]> {
  return sql.all('SELECT worker, report FROM frontier_workers WHERE crawl_id = ? AND worker <> ? ORDER BY worker', [
    crawlId,
    except,
  ]);
}

/**
 * The links and errors of a shared crawl, counted in the store: every outcome the crawl wrote counts once, however
 * many workers fetched its URL (a worker that died after writing and before marking its claim done leaves it to
 * another), as the crawl's own counters count them (`skipped` is no check; a bot block is no error). A link check
 * answered from the external link cache wrote nothing: its done claim in the lane counts it.
 */
export async function sharedOutcomeCounts(
  sql: Sql,
  crawlId: number,
  checks: { lane: string; prefix: string },
): Promise<{ links: number; errors: number }> {
  const rows = await sql.all<{ reason: LinkOutcomeReason; blocked: number; n: number }>(
    'SELECT reason, blocked, count(*) AS n FROM link_outcomes WHERE crawl_id = ? GROUP BY reason, blocked',
    [crawlId],
  );
  let links = 0;
  let errors = 0;
  for (const r of rows) {
    if (r.reason !== 'skipped') links += Number(r.n);
    if (isBroken(r.reason) && !r.blocked) errors += Number(r.n);
  }
  const cached = await sql.get<{ n: number }>(
    `SELECT count(*) AS n FROM frontier f WHERE f.crawl_id = ? AND f.target = ? AND f.state = 'done'
       AND NOT EXISTS (SELECT 1 FROM link_outcomes o WHERE o.url = substr(f.url, ?) AND o.crawl_id = f.crawl_id)`,
    [crawlId, checks.lane, checks.prefix.length + 1],
  );
  return { links: links + Number(cached?.n ?? 0), errors };
}
