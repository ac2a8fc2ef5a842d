// The shared frontier of one crawl, for several workers (processes) crawling one site together: every page URL found
// is added once (the adder that made it new is the one that says so), handed to one worker at a time under a lease,
// and marked done once. A worker renews its leases as its heartbeat; a claim whose lease ran out goes back to
// pending, so a dead worker's URLs are taken by the others. max_pages holds per target: at most that many URLs of a
// target are ever handed out, the rest are `cut`. Exactly one worker sees the frontier finished.
//
// Each read-decide-write runs in one transaction that takes the write lock up front (SQLite: BEGIN IMMEDIATE;
// PostgreSQL: the rows it decides on are locked, pending URLs with FOR UPDATE SKIP LOCKED; adders and claimers share
// the crawl's row, only finishing takes it alone). The lead's plan and the workers' reports are in crawl-plan.ts.
import { rowLock, type Sql, type SqlValue } from './sql.js';

export type FrontierUrlState = 'pending' | 'claimed' | 'done' | 'cut';

export interface FrontierTarget {
  /** The target's host[:port], as the crawler names it. */
  target: string;
  maxPages: number;
}

export interface FoundUrl {
  url: string;
  target: string;
  /** The crawler's own note about the URL (e.g. JSON), handed back with its claim. */
  info?: string | null;
}

export interface AddResult {
  /** URLs this call made new and pending: this caller is the one that found them. */
  added: string[];
  /** URLs this call made new but max_pages had been reached for their target: never handed out. */
  cut: string[];
  /** The frontier had finished: nothing was added. */
  closed: boolean;
}

export interface Claim {
  id: number;
  url: string;
  target: string;
  info: string | null;
  /** 1 for the first hand-out; more when an earlier holder's lease ran out. */
  attempts: number;
}

export interface TargetCounts {
  maxPages: number;
  /** URLs handed out at least once (never above maxPages). */
  handed: number;
  pending: number;
  claimed: number;
  done: number;
  cut: number;
}

export interface FrontierStatus {
  pending: number;
  /** Claims, live or not. */
  claimed: number;
  /** Of the claims, those whose lease has run out (taken again by the next claim). */
  expired: number;
  done: number;
  cut: number;
  /** Nothing pending or claimed: nothing left to do (finishFrontier tells the one worker that ends it). */
  idle: boolean;
  /** finishFrontier has answered true, and to whom. */
  finishedBy: string | null;
  targets: Record<string, TargetCounts>;
}

/** Rows of one multi-row INSERT (5 or 6 values each: well under both databases' bound on parameters). */
const INSERT_CHUNK = 200;

const forUpdate = (sql: Sql, skipLocked = false) =>
  sql.dialect === 'pg' ? (skipLocked ? ' FOR UPDATE SKIP LOCKED' : ' FOR UPDATE') : '';
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Starts (or joins: every worker may call it) the frontier of a crawl with its targets' max_pages. */
export async function openFrontier(
  sql: Sql,
  crawlId: number,
  targets: readonly FrontierTarget[],
  now = Date.now(),
): Promise<void> {
  for (const t of targets) {
    if (!Number.isInteger(t.maxPages) || t.maxPages < 1)
      throw new Error(`maxPages of target ${t.target}: must be an integer of at least 1 (got ${t.maxPages})`);
  }
  await sql.rowTx(async (tx) => {
    await tx.run('INSERT INTO frontier_crawls (crawl_id, opened_at) VALUES (?, ?) ON CONFLICT (crawl_id) DO NOTHING', [
      crawlId,
      now,
    ]);
    for (const t of targets) {
      await tx.run(
        'INSERT INTO frontier_targets (crawl_id, target, max_pages) VALUES (?, ?, ?) ON CONFLICT (crawl_id, target) DO NOTHING',
        [crawlId, t.target, t.maxPages],
      );
    }
  });
}

async function targetRows(
  tx: Sql,
  crawlId: number,
  targets: readonly string[],
  mode: 'share' | 'update',
): Promise<Map<string, { maxPages: number; handed: number }>> {
  const rows = await tx.all<{ target: string; maxPages: number; handed: number }>(
    `SELECT target, max_pages AS "maxPages", handed FROM frontier_targets WHERE crawl_id = ? AND target IN (${marks(targets.length)}) ORDER BY target${rowLock(tx, mode)}`,
    [crawlId, ...targets],
  );
  const out = new Map(rows.map((r) => [r.target, { maxPages: r.maxPages, handed: r.handed }]));
  const missing = targets.find((t) => !out.has(t));
  if (missing !== undefined)
    throw new Error(
      `target ${missing} is not in the frontier of crawl ${crawlId}: openFrontier names the crawl's targets first`,
    );
  return out;
}

async function crawlRow(tx: Sql, crawlId: number, mode: 'share' | 'update'): Promise<{ finishedAt: number | null }> {
  const row = await tx.get<{ finishedAt: number | null }>(
    `SELECT finished_at AS "finishedAt" FROM frontier_crawls WHERE crawl_id = ?${rowLock(tx, mode)}`,
    [crawlId],
  );
  if (!row) throw new Error(`crawl ${crawlId} has no frontier: openFrontier first`);
  return row;
}

/**
 * Adds the URLs found; those already in the crawl's frontier (in any state) are left as they are. Atomic per URL: of
 * adders racing with one URL, exactly one gets it back as new, and only that one checks or fetches it.
 */
export async function addUrls(sql: Sql, crawlId: number, urls: readonly FoundUrl[]): Promise<AddResult> {
  const unique = new Map<string, FoundUrl>();
  for (const u of urls) if (!unique.has(u.url)) unique.set(u.url, u);
  const result: AddResult = { added: [], cut: [], closed: false };
  if (!unique.size) return result;
  return sql.rowTx(async (tx) => {
    if ((await crawlRow(tx, crawlId, 'share')).finishedAt !== null) return { ...result, closed: true };
    // A target's handed count decides pending or cut: claims (which move it) wait meanwhile.
    const targets = await targetRows(
      tx,
      crawlId,
      [...new Set([...unique.values()].map((u) => u.target))].sort(),
      'share',
    );
    const given = [...unique.values()];
    // Claims take the oldest first, so ids follow the order given. On PostgreSQL adders run side by side: each
    // inserts in URL order (two adders of the same URLs in different orders would wait for each other in a circle),
    // with ids drawn beforehand in the order given.
    let list: { u: FoundUrl; id: number | null }[] = given.map((u) => ({ u, id: null }));
    if (tx.dialect === 'pg') {
      const ids = (
        await tx.all<{ id: number }>(
          `SELECT nextval(pg_get_serial_sequence('frontier', 'id')) AS id FROM generate_series(1, ?)`,
          [given.length],
        )
      )
        .map((r) => Number(r.id))
        .sort((a, b) => a - b);
      list = given
        .map((u, i) => ({ u, id: ids[i]! }))
        .sort((a, b) => (a.u.url < b.u.url ? -1 : a.u.url > b.u.url ? 1 : 0));
    }
    const made = new Map<string, FrontierUrlState>();
    for (let i = 0; i < list.length; i += INSERT_CHUNK) {
      const chunk = list.slice(i, i + INSERT_CHUNK);
      const values: SqlValue[] = [];
      for (const { u, id } of chunk) {
        const t = targets.get(u.target)!;
        if (id !== null) values.push(id);
        values.push(crawlId, u.url, u.target, u.info ?? null, t.handed >= t.maxPages ? 'cut' : 'pending');
      }
      const withId = tx.dialect === 'pg';
      const rows = await tx.all<{ url: string; state: FrontierUrlState }>(
        `INSERT INTO frontier (${withId ? 'id, ' : ''}crawl_id, url, target, info, state) VALUES ${chunk.map(() => (withId ? '(?, ?, ?, ?, ?, ?)' : '(?, ?, ?, ?, ?)')).join(', ')}
         ON CONFLICT (crawl_id, url) DO NOTHING RETURNING url, state`,
        values,
      );
      for (const r of rows) made.set(r.url, r.state);
    }
    // In the order given, whatever order the database returned them in.
    for (const u of given) {
      const state = made.get(u.url);
      if (state === 'pending') result.added.push(u.url);
      else if (state === 'cut') result.cut.push(u.url);
    }
    return result;
  });
}

/** Claims whose lease ran out go back to pending (kept as handed out once: taking one again counts nothing). */
export async function releaseExpired(sql: Sql, crawlId: number, now = Date.now()): Promise<number> {
  const r = await sql.rowTx((tx) =>
    tx.run(
      `UPDATE frontier SET state = 'pending', worker = NULL, lease_until = NULL WHERE crawl_id = ? AND state = 'claimed' AND lease_until <= ?`,
      [crawlId, now],
    ),
  );
  return r.changes;
}

/**
 * Claims up to n pending URLs of a target for `worker`, oldest first, each under a lease of leaseMs. Expired claims
 * of the crawl are released first (unless sweepExpired is false). A URL never handed out is taken only while the target has handed out fewer than
 * max_pages; when the target reaches it, its URLs never handed out become `cut`.
 */
export async function claimUrls(
  sql: Sql,
  o: {
    crawlId: number;
    target: string;
    worker: string;
    n: number;
    leaseMs: number;
    now?: number;
    sweepExpired?: boolean;
  },
): Promise<Claim[]> {
  if (!Number.isInteger(o.n) || o.n < 1) throw new Error(`n: must be an integer of at least 1 (got ${o.n})`);
  return sql.rowTx(async (tx) => {
    if ((await crawlRow(tx, o.crawlId, 'share')).finishedAt !== null) return [];
    // The time once the lock is held (waiting for it may have taken a while).
    const now = o.now ?? Date.now();
    // sweepExpired false: the caller releases expired claims on its own clock (a heartbeat), not with every claim.
    if (o.sweepExpired !== false) await releaseExpired(tx, o.crawlId, now);
    const t = (await targetRows(tx, o.crawlId, [o.target], 'update')).get(o.target)!;
    const rows = await tx.all<Claim>(
      `SELECT id, url, target, info, attempts FROM frontier WHERE crawl_id = ? AND target = ? AND state = 'pending' ORDER BY id LIMIT ?${forUpdate(tx, true)}`,
      [o.crawlId, o.target, o.n],
    );
    const taken: Claim[] = [];
    let handed = t.handed;
    for (const r of rows) {
      if (r.attempts === 0) {
        if (handed >= t.maxPages) continue;
        handed++;
      }
      taken.push({ ...r, attempts: r.attempts + 1 });
    }
    if (taken.length) {
      await tx.run(
        `UPDATE frontier SET state = 'claimed', worker = ?, lease_until = ?, attempts = attempts + 1 WHERE id IN (${marks(taken.length)})`,
        [o.worker, now + o.leaseMs, ...taken.map((c) => c.id)],
      );
    }
    if (handed !== t.handed) {
      await tx.run('UPDATE frontier_targets SET handed = ? WHERE crawl_id = ? AND target = ?', [
        handed,
        o.crawlId,
        o.target,
      ]);
    }
    if (handed >= t.maxPages) {
      await tx.run(
        `UPDATE frontier SET state = 'cut' WHERE crawl_id = ? AND target = ? AND state = 'pending' AND attempts = 0`,
        [o.crawlId, o.target],
      );
    }
    return taken;
  });
}

/**
 * Marks claimed URLs done. Only `worker`'s own claims count (a lease that ran out but was not taken again is still
 * its own); the ids another worker has taken since, or that are done already, come back refused.
 */
export async function markDone(
  sql: Sql,
  o: { crawlId: number; worker: string; ids: readonly number[] },
): Promise<{ done: number[]; refused: number[] }> {
  if (!o.ids.length) return { done: [], refused: [] };
  const rows = await sql.rowTx((tx) =>
    tx.all<{ id: number }>(
      `UPDATE frontier SET state = 'done', lease_until = NULL WHERE crawl_id = ? AND state = 'claimed' AND worker = ? AND id IN (${marks(o.ids.length)}) RETURNING id`,
      [o.crawlId, o.worker, ...o.ids],
    ),
  );
  const done = new Set(rows.map((r) => r.id));
  return { done: o.ids.filter((id) => done.has(id)), refused: o.ids.filter((id) => !done.has(id)) };
}

/** The worker's heartbeat: its claims of the crawl are leased leaseMs from now. Returns how many. */
export async function renewClaims(
  sql: Sql,
  o: { crawlId: number; worker: string; leaseMs: number; now?: number },
): Promise<number> {
  const r = await sql.rowTx((tx) =>
    tx.run(`UPDATE frontier SET lease_until = ? WHERE crawl_id = ? AND state = 'claimed' AND worker = ?`, [
      (o.now ?? Date.now()) + o.leaseMs,
      o.crawlId,
      o.worker,
    ]),
  );
  return r.changes;
}

/** Gives a worker's claims (all, or those ids) back as pending at once: it stops, or is known to be gone. */
export async function releaseClaims(
  sql: Sql,
  o: { crawlId: number; worker: string; ids?: readonly number[] },
): Promise<number> {
  if (o.ids && !o.ids.length) return 0;
  const r = await sql.rowTx((tx) =>
    tx.run(
      `UPDATE frontier SET state = 'pending', worker = NULL, lease_until = NULL WHERE crawl_id = ? AND state = 'claimed' AND worker = ?${o.ids ? ` AND id IN (${marks(o.ids.length)})` : ''}`,
      [o.crawlId, o.worker, ...(o.ids ?? [])],
    ),
  );
  return r.changes;
}

/** Counts of the crawl's frontier, per target and in all, read on one snapshot. */
export async function frontierStatus(sql: Sql, crawlId: number, now = Date.now()): Promise<FrontierStatus> {
  return sql.snapshot(async (s) => {
    const crawl = await s.get<{ finishedBy: string | null; finishedAt: number | null }>(
      `SELECT finished_by AS "finishedBy", finished_at AS "finishedAt" FROM frontier_crawls WHERE crawl_id = ?`,
      [crawlId],
    );
    if (!crawl) throw new Error(`crawl ${crawlId} has no frontier: openFrontier first`);
    const targets = await s.all<{ target: string; maxPages: number; handed: number }>(
      `SELECT target, max_pages AS "maxPages", handed FROM frontier_targets WHERE crawl_id = ? ORDER BY target`,
      [crawlId],
    );
    const counts = await s.all<{ target: string; state: FrontierUrlState; n: number }>(
      `SELECT target, state, count(*) AS n FROM frontier WHERE crawl_id = ? GROUP BY target, state`,
      [crawlId],
    );
    const expired = await s.get<{ n: number }>(
      `SELECT count(*) AS n FROM frontier WHERE crawl_id = ? AND state = 'claimed' AND lease_until <= ?`,
      [crawlId, now],
    );
    const out: FrontierStatus = {
      pending: 0,
      claimed: 0,
      expired: expired?.n ?? 0,
      done: 0,
      cut: 0,
      idle: true,
      finishedBy: crawl.finishedAt !== null ? crawl.finishedBy : null,
      targets: {},
    };
    for (const t of targets)
      out.targets[t.target] = { maxPages: t.maxPages, handed: t.handed, pending: 0, claimed: 0, done: 0, cut: 0 };
    for (const c of counts) {
      out[c.state] += c.n;
      const t = out.targets[c.target];
      if (t) t[c.state] += c.n;
    }
    out.idle = out.pending === 0 && out.claimed === 0;
    return out;
  });
}

/**
 * Ends the crawl's frontier when nothing is pending or claimed (an expired claim still counts: its URL is not done).
 * True for exactly one caller, which then ends the crawl; false for every other, and while work is left. Nothing is
 * added or claimed after.
 */
export async function finishFrontier(sql: Sql, crawlId: number, worker: string, now = Date.now()): Promise<boolean> {
  // Asked often by an idle lead: a plain read first, the crawl's row locked only when nothing seems left.
  if (
    await sql.get(`SELECT 1 AS busy FROM frontier WHERE crawl_id = ? AND state IN ('pending', 'claimed') LIMIT 1`, [
      crawlId,
    ])
  )
    return false;
  return sql.rowTx(async (tx) => {
    if ((await crawlRow(tx, crawlId, 'update')).finishedAt !== null) return false;
    const busy = await tx.get(
      `SELECT 1 AS busy FROM frontier_targets t WHERE t.crawl_id = ?
         AND EXISTS (SELECT 1 FROM frontier f WHERE f.crawl_id = t.crawl_id AND f.target = t.target AND f.state IN ('pending', 'claimed'))
       LIMIT 1`,
      [crawlId],
    );
    if (busy) return false;
    await tx.run('UPDATE frontier_crawls SET finished_at = ?, finished_by = ? WHERE crawl_id = ?', [
      now,
      worker,
      crawlId,
    ]);
    return true;
  });
}

/** The crawl's URLs in one state, in the order they were added, a page at a time (e.g. the cut ones, to record). */
export async function frontierUrls(
  sql: Sql,
  crawlId: number,
  state: FrontierUrlState,
  o: { target?: string; afterId?: number; limit?: number } = {},
): Promise<{ id: number; url: string; target: string; info: string | null }[]> {
  const params: SqlValue[] = [crawlId, state, o.afterId ?? 0];
  const where = o.target !== undefined ? ' AND target = ?' : '';
  if (o.target !== undefined) params.push(o.target);
  params.push(o.limit ?? 1000);
  return sql.all(
    `SELECT id, url, target, info FROM frontier WHERE crawl_id = ? AND state = ? AND id > ?${where} ORDER BY id LIMIT ?`,
    params,
  );
}

/** Whether a URL is in the crawl's frontier, in any state. */
export async function frontierHas(sql: Sql, crawlId: number, url: string): Promise<boolean> {
  return (await sql.get('SELECT 1 AS one FROM frontier WHERE crawl_id = ? AND url = ?', [crawlId, url])) !== undefined;
}

/**
 * A URL this worker reached without a claim (the end of a redirect) becomes its own, done at once: true when it was
 * not in the frontier (this worker stores it), false when it was (whoever has it does). Counts nothing to max_pages,
 * as a redirect's end never has.
 */
export async function takeUrl(
  sql: Sql,
  o: { crawlId: number; url: string; target: string; worker: string },
): Promise<boolean> {
  return sql.rowTx(async (tx) => {
    if ((await crawlRow(tx, o.crawlId, 'share')).finishedAt !== null) return false;
    const rows = await tx.all(
      `INSERT INTO frontier (crawl_id, url, target, state, attempts, worker) VALUES (?, ?, ?, 'done', 1, ?) ON CONFLICT (crawl_id, url) DO NOTHING RETURNING id`,
      [o.crawlId, o.url, o.target, o.worker],
    );
    return rows.length === 1;
  });
}

/** Ends the frontier now, whatever is left (the crawl was stopped): nothing is claimed or added after. */
export async function closeFrontier(sql: Sql, crawlId: number, worker: string, now = Date.now()): Promise<void> {
  await sql.rowTx((tx) =>
    tx.run('UPDATE frontier_crawls SET finished_at = ?, finished_by = ? WHERE crawl_id = ? AND finished_at IS NULL', [
      now,
      worker,
      crawlId,
    ]),
  );
}

/** Whether the frontier has finished (or was closed, or dropped). */
export async function frontierFinished(sql: Sql, crawlId: number): Promise<boolean> {
  const row = await sql.get<{ finishedAt: number | null }>(
    'SELECT finished_at AS "finishedAt" FROM frontier_crawls WHERE crawl_id = ?',
    [crawlId],
  );
  return !row || row.finishedAt !== null;
}

/** Forgets a crawl's frontier (once the crawl has ended and its results are recorded). */
export async function dropFrontier(sql: Sql, crawlId: number): Promise<void> {
  await sql.tx(async (tx) => {
    // The crawl's row first: a worker writing to the frontier holds it, and is waited for.
    await tx.run('DELETE FROM frontier_crawls WHERE crawl_id = ?', [crawlId]);
    await tx.run('DELETE FROM frontier_workers WHERE crawl_id = ?', [crawlId]);
    await tx.run('DELETE FROM frontier WHERE crawl_id = ?', [crawlId]);
    await tx.run('DELETE FROM frontier_targets WHERE crawl_id = ?', [crawlId]);
  });
}
