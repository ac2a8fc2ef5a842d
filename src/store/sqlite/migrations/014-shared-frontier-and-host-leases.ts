// Owned by the shared-frontier work (src/store/frontier.ts, src/store/host-leases.ts): what several `svc worker`
// processes share while they crawl one site together. Per crawl: its frontier (every page URL found, each
// handed to one worker at a time under a lease; done once), each target's max_pages count of URLs handed out,
// and per host the politeness every worker keeps (slot tokens with leases, the next start, a pause). Times in
// ms since the epoch. Rows live as long as their crawl's frontier; dropped with it.
import type { Migration } from './index.js';

export const migration: Migration = {
  version: 14,
  name: 'shared crawl frontier and host leases',
  sql: `
CREATE TABLE frontier_crawls (
  crawl_id    INTEGER PRIMARY KEY,
  opened_at   INTEGER NOT NULL,
  finished_at INTEGER,               -- set once, by the one worker that saw nothing pending or claimed
  finished_by TEXT
);
CREATE TABLE frontier_targets (
  crawl_id  INTEGER NOT NULL,
  target    TEXT NOT NULL,          -- the target's host[:port]
  max_pages INTEGER NOT NULL,
  handed    INTEGER NOT NULL DEFAULT 0,   -- URLs handed out (a claim taken again after its lease ran out counts once)
  PRIMARY KEY (crawl_id, target)
);
CREATE TABLE frontier (
  id          INTEGER PRIMARY KEY,  -- claims take the oldest first
  crawl_id    INTEGER NOT NULL,
  url         TEXT NOT NULL,
  target      TEXT NOT NULL,
  info        TEXT,                 -- the crawler's own note about the URL, handed back with the claim
  state       TEXT NOT NULL CHECK (state IN ('pending','claimed','done','cut')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  worker      TEXT,                 -- claimed: by whom
  lease_until INTEGER,              -- claimed: another worker may take it after
  UNIQUE (crawl_id, url)
);
CREATE INDEX frontier_next ON frontier(crawl_id, target, state, id);
CREATE INDEX frontier_claimed ON frontier(crawl_id, lease_until) WHERE state = 'claimed';
CREATE TABLE host_pace (
  crawl_id        INTEGER NOT NULL,
  host            TEXT NOT NULL,
  next_start_at   INTEGER NOT NULL DEFAULT 0,
  paused_until    INTEGER NOT NULL DEFAULT 0,
  slow_downs      INTEGER NOT NULL DEFAULT 0,
  concurrency_cap INTEGER,
  slow_delay_ms   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (crawl_id, host)
);
CREATE TABLE host_slots (
  crawl_id    INTEGER NOT NULL,
  host        TEXT NOT NULL,
  slot        INTEGER NOT NULL,     -- 0 … concurrency-1: the key itself keeps a host's requests at most that many
  token       TEXT NOT NULL UNIQUE, -- random: only the holder frees it
  holder      TEXT NOT NULL,        -- the worker
  lease_until INTEGER NOT NULL,
  PRIMARY KEY (crawl_id, host, slot)
);
CREATE INDEX host_slots_holder ON host_slots(holder);
`,
};
