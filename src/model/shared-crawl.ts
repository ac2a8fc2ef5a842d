// A crawl that several worker processes run together, as the crawler sees it: a frontier of URLs in the database
// (each found once, handed to one worker at a time), slots per host that hold politeness across the workers, and
// each worker's report of its share. The backend implements it on the store; the crawler never imports the store.
import type { HostLimits } from './host-pace.js';

/** The frontier lane of link checks (URLs that are checked, not crawled as pages); no host is named so. */
export const CHECK_LANE = '#checks';

/** What a worker that joins needs from the lead: per target, whether its links are walked. */
export interface SharedPlan {
  targets: Record<string, { walk: boolean }>;
}

/** A URL to add: a page of a target (target = its host), or a link check (target = CHECK_LANE). */
export interface SharedUrl {
  url: string;
  target: string;
  info?: string | null;
}

export interface SharedClaim {
  id: number;
  url: string;
  target: string;
  info: string | null;
}

/** One worker's share of the crawl, as the lead adds it up. */
export interface WorkerReport {
  pages: number;
  links: number;
  errors: number;
  notModified: number;
  unchanged: number;
  /** Requests this worker sent again (a target's `retries`); absent from older workers. */
  retries?: number;
  targets: Record<string, { pages: number; seedReached: boolean; failure: string | null }>;
}

export type SlotAnswer = { kind: 'slot'; token: string; startAt: number } | { kind: 'wait'; waitMs: number };

/** Politeness per host held across every worker of the crawl. */
export interface SharedHosts {
  acquire(host: string, limits: HostLimits): Promise<SlotAnswer>;
  release(token: string): Promise<void>;
  pause(host: string, limits: HostLimits, waitMs: number): Promise<void>;
  /** The host's state as every worker sees it: paused until when, and the concurrency in force. */
  pace(host: string, limits: HostLimits): Promise<{ pausedUntil: number; concurrency: number }>;
}

export interface SharedCrawl {
  /**
   * The lead claimed the crawl: it plans it, finishes it and ends it; others join. A worker that joined becomes the
   * lead when it takes over from a lead that died (promote).
   */
  readonly role: 'lead' | 'join';
  /** join: this worker is the lead from now on (its lead died): it finishes the crawl and ends it. */
  promote(): void;
  /**
   * lead: another process has taken the lead over (this one was silent past the heartbeat limit): from now on this
   * one only gives its claims back; it neither closes nor ends the crawl.
   */
  demote(): void;
  readonly worker: string;
  /** join: the lead's plan. */
  readonly plan: SharedPlan | null;
  readonly hosts: SharedHosts;
  /** How often the worker renews its claims and slots (well within their lease) and writes its report. */
  readonly heartbeatMs: number;
  /** lead: opens the frontier with each target's (or lane's) cap on URLs handed out. */
  open(targets: readonly { target: string; maxPages: number }[]): Promise<void>;
  /** lead: from now on others may join. */
  publish(plan: SharedPlan): Promise<void>;
  /** The URLs this call made new (someone will claim them), and those max_pages cut. */
  add(urls: readonly SharedUrl[]): Promise<{ added: string[]; cut: string[] }>;
  /** Whether the URL is in the frontier (some worker fetched it, or will). */
  has(url: string): Promise<boolean>;
  /** A redirect's end reached without a claim: true when this worker is the one to store it. */
  take(url: string, target: string): Promise<boolean>;
  /** Up to n URLs of a target or lane under a lease; null once the frontier has finished. */
  claim(target: string, n: number): Promise<SharedClaim[] | null>;
  /** Claims whose results are written (the writer drained) and counted in `report`. */
  done(ids: readonly number[], report: WorkerReport): Promise<void>;
  /** Renews this worker's claims and slots, and writes its report. */
  heartbeat(report: WorkerReport): Promise<void>;
  /** lead: ends the frontier when nothing is pending or claimed (true once). */
  finish(): Promise<boolean>;
  /** lead: ends the frontier now (a stop). */
  close(): Promise<void>;
  /** This worker's claims go back to pending (it stops). */
  release(): Promise<void>;
  /** The other workers' last reports. */
  reports(): Promise<WorkerReport[]>;
  /** Per target host, the pages the crawl stored, counted in the store (a page two workers stored counts once). */
  storedPages(): Promise<Map<string, number>>;
  /** The stored pages the crawl kept as they were (304, or the same body), counted in the store: each once. */
  storedKept(): Promise<{ notModified: number; unchanged: number }>;
  /**
   * The links checked and errors of the crawl, counted in the store (an outcome two workers wrote counts once); a
   * link check answered from the cache by its done claim in the lane, whose URLs start with checkPrefix.
   */
  storedOutcomes(checkPrefix: string): Promise<{ links: number; errors: number }>;
  /** URLs left in a state after the end (cut by max_pages, or pending at a stop), a page at a time. */
  leftovers(state: 'cut' | 'pending', afterId: number): Promise<SharedClaim[]>;
}
