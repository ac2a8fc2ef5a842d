// Crawl tasks below the protocol: a crawl started for a client becomes a task with a random id that any process on
// the same store answers for (nothing is kept in memory), after a restart too. The task row says whose it is and how
// long it lives; the crawl record, read through the backend each time, says how it goes and how it ended.
import { randomBytes } from 'node:crypto';
import { BackendError } from '../model/errors.js';
import { countsPhrase } from '../model/counts.js';
import { crawlEnded, type CrawlRecord } from '../model/types.js';
import type { Capability } from '../model/users.js';
import type { Sql } from '../store/sql.js';
import {
  deleteExpiredCrawlTasks,
  insertCrawlTask,
  markCrawlTaskCancelled,
  openCrawlTasks,
  ownCrawlTask,
  setCrawlTaskExpiry,
  unmarkCrawlTaskCancelled,
  type CrawlTaskRow,
} from '../store/tasks.js';
import type { Backend } from './backend.js';

export type { CrawlTaskRow };

export const CRAWL_TASK_STATUSES = ['working', 'completed', 'failed', 'cancelled'] as const;
export type CrawlTaskStatus = (typeof CRAWL_TASK_STATUSES)[number];

/** How long a task is kept after its crawl ends, unless told: time for a client that polls now and then. */
export const CRAWL_TASK_TTL_MS = 60 * 60 * 1000;
/** How often a client is asked to poll: about the crawl owner's heartbeat, which renews the counts. */
export const CRAWL_TASK_POLL_INTERVAL_MS = 2000;

/** 16 random bytes, base64url: 22 characters, unguessable, safe in a URL or a JSON-RPC id. */
export function newCrawlTaskId(): string {
  return randomBytes(16).toString('base64url');
}

const TASK_ID_RE = /^[A-Za-z0-9_-]{22}$/;

/** Whether `id` has the form newCrawlTaskId gives (anything else is not looked up). */
export function isCrawlTaskId(id: unknown): id is string {
  return typeof id === 'string' && TASK_ID_RE.test(id);
}

/**
 * The task's status from its crawl. A cancel the task accepted is final whatever the crawl did after it; without
 * one, a stopped crawl (a shutdown, or a stop from outside the task) failed for this task, as did a crawl that no
 * longer exists.
 */
export function crawlTaskStatus(crawl: CrawlRecord | null, cancelled: boolean): CrawlTaskStatus {
  if (cancelled) return 'cancelled';
  if (!crawl || crawl.status === 'stopped' || crawl.status === 'failed') return 'failed';
  return crawl.status === 'completed' ? 'completed' : 'working';
}

function counts(c: CrawlRecord): string {
  return countsPhrase(c.stats);
}

/** One line for the client: what the crawl has done so far, or how it ended. */
export function crawlTaskStatusMessage(crawlId: number, crawl: CrawlRecord | null, status: CrawlTaskStatus): string {
  if (!crawl) return `crawl ${crawlId} no longer exists`;
  const why = crawl.error ? `: ${crawl.error}` : '';
  switch (status) {
    case 'working':
      return crawl.status === 'queued'
        ? `crawl ${crawlId} is queued`
        : `crawl ${crawlId} is running: ${counts(crawl)} so far`;
    case 'completed':
      return `crawl ${crawlId} completed: ${counts(crawl)}`;
    case 'cancelled':
      return crawlEnded(crawl.status)
        ? `cancelled: crawl ${crawlId} ended (${crawl.status}) after ${counts(crawl)}`
        : `cancelled: crawl ${crawlId} is stopping after ${counts(crawl)}`;
    case 'failed':
      return crawl.status === 'stopped'
        ? `crawl ${crawlId} was stopped after ${counts(crawl)}${why}`
        : `crawl ${crawlId} failed after ${counts(crawl)}${why}`;
  }
}

/** When a task whose crawl ended (at `endedAt`, or is gone: now) may be deleted. */
export function crawlTaskExpiry(crawl: CrawlRecord | null, ttlMs: number, nowMs: number): string | null {
  if (crawl && !crawlEnded(crawl.status)) return null;
  const end = crawl?.finishedAt ? Date.parse(crawl.finishedAt) : nowMs;
  return new Date(end + ttlMs).toISOString();
}

/** A task as it stands now: its row, its crawl's record (null when gone) and what they make together. */
export interface CrawlTaskView {
  task: CrawlTaskRow;
  crawl: CrawlRecord | null;
  status: CrawlTaskStatus;
  statusMessage: string;
  /** The last change the task can tell of: the crawl's end, the cancel, the crawl's start, or the task's creation. */
  lastUpdatedAt: string;
  /** When it will be deleted; null while its crawl runs. */
  expiresAt: string | null;
}

export interface CrawlTasksOptions {
  /** The store the tasks live in (the one the users live in). */
  sql: Sql;
  /** Where the crawls run and are read. */
  backend: Backend;
  ttlMs?: number;
  pollIntervalMs?: number;
  /** The clock (ms since the epoch); tests move it. */
  now?: () => number;
}

export interface NewCrawlTask {
  owner: string;
  ability: string;
  capability: Capability;
  crawlId: number;
}

export class CrawlTasks {
  private readonly sql: Sql;
  private readonly backend: Backend;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  private readonly now: () => number;

  constructor(opts: CrawlTasksOptions) {
    this.sql = opts.sql;
    this.backend = opts.backend;
    this.ttlMs = opts.ttlMs ?? CRAWL_TASK_TTL_MS;
    this.pollIntervalMs = opts.pollIntervalMs ?? CRAWL_TASK_POLL_INTERVAL_MS;
    this.now = opts.now ?? Date.now;
  }

  /** Records a task for a crawl just started. */
  async create(t: NewCrawlTask): Promise<CrawlTaskView> {
    const id = newCrawlTaskId();
    await insertCrawlTask(this.sql, {
      id,
      ...t,
      createdAt: new Date(this.now()).toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    });
    return (await this.find(id, t.owner))!;
  }

  /** The task `id` of `owner` as it stands now; null when there is none of theirs (or it has expired). */
  async find(id: string, owner: string): Promise<CrawlTaskView | null> {
    if (!isCrawlTaskId(id)) return null;
    const task = await ownCrawlTask(this.sql, id, owner);
    const nowMs = this.now();
    if (!task || (task.expiresAt !== null && Date.parse(task.expiresAt) <= nowMs)) return null;
    const crawl = await this.backend.getCrawl(task.crawlId);
    if (task.expiresAt === null) {
      const expiresAt = crawlTaskExpiry(crawl, task.ttlMs, nowMs);
      // Any process computes the same time from the crawl's end; only a gone crawl's (from now) may differ a little.
      if (expiresAt) {
        await setCrawlTaskExpiry(this.sql, task.id, expiresAt);
        task.expiresAt = expiresAt;
      }
    }
    const status = crawlTaskStatus(crawl, task.cancelledAt !== null);
    const lastUpdatedAt = crawl?.finishedAt ?? task.cancelledAt ?? crawl?.startedAt ?? task.createdAt;
    return {
      task,
      crawl,
      status,
      statusMessage: crawlTaskStatusMessage(task.crawlId, crawl, status),
      lastUpdatedAt,
      expiresAt: task.expiresAt,
    };
  }

  /**
   * Cancels a working task: records the cancel, then asks the crawl to stop wherever it runs. False (and nothing
   * recorded) when the crawl had ended meanwhile or another cancel came first.
   */
  async cancel(view: CrawlTaskView): Promise<boolean> {
    if (view.status !== 'working') return false;
    if (!(await markCrawlTaskCancelled(this.sql, view.task.id, new Date(this.now()).toISOString()))) return false;
    try {
      await this.backend.stopCrawl(view.task.crawlId, `cancelled by ${view.task.owner} (task ${view.task.id})`);
      return true;
    } catch (err) {
      // The crawl ended (or went) between the look and the stop: the task keeps its real end.
      if (err instanceof BackendError && (err.code === 'conflict' || err.code === 'not_found')) {
        await unmarkCrawlTaskCancelled(this.sql, view.task.id);
        return false;
      }
      throw err;
    }
  }

  /** Sets the expiry of tasks whose crawl has ended, then deletes the expired ones; answers how many went. */
  async cleanup(): Promise<number> {
    const nowMs = this.now();
    for (const task of await openCrawlTasks(this.sql)) {
      const expiresAt = crawlTaskExpiry(await this.backend.getCrawl(task.crawlId), task.ttlMs, nowMs);
      if (expiresAt) await setCrawlTaskExpiry(this.sql, task.id, expiresAt);
    }
    return deleteExpiredCrawlTasks(this.sql, new Date(nowMs).toISOString());
  }
}
