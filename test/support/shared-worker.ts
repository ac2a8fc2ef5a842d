// A worker process for the tests of what separate processes share through one SQLite file (run compiled, from
// dist/): node shared-worker.js '<json task>'. Prints one line of JSON, its result.
//   {"kind":"drain", db, crawlId, target, worker, n}: claims n at a time and marks them done until nothing is left,
//     then tries to finish the frontier → {got: [url], finished}
//   {"kind":"slots", db, crawlId, host, worker, acquirers, requests, holdMs, concurrency, delayMs}: that many
//     acquirers each send `requests` requests to host, holding each slot holdMs → {held: [[start, end]], startAts}
import { setTimeout as sleep } from 'node:timers/promises';
import { claimUrls, finishFrontier, frontierStatus, markDone } from '../../src/store/frontier.js';
import { acquireHostSlot, releaseHostSlot } from '../../src/store/host-leases.js';
import { Store } from '../../src/store/sqlite/store.js';

interface DrainTask {
  kind: 'drain';
  db: string;
  crawlId: number;
  target: string;
  worker: string;
  n: number;
}
interface SlotsTask {
  kind: 'slots';
  db: string;
  crawlId: number;
  host: string;
  worker: string;
  acquirers: number;
  requests: number;
  holdMs: number;
  concurrency: number;
  delayMs: number;
}

async function main(): Promise<void> {
  const task = JSON.parse(process.argv[2]!) as DrainTask | SlotsTask;
  // Migrated by the test before: a worker only opens the file (and waits for the write lock as long as it takes).
  const store = new Store(task.db, { migrate: false, busyTimeoutMs: 30_000 });
  const sql = store.sql;
  try {
    if (task.kind === 'drain') {
      const got: string[] = [];
      for (;;) {
        const claims = await claimUrls(sql, {
          crawlId: task.crawlId,
          target: task.target,
          worker: task.worker,
          n: task.n,
          leaseMs: 60_000,
        });
        if (!claims.length) {
          if ((await frontierStatus(sql, task.crawlId)).idle) {
            process.stdout.write(
              JSON.stringify({ got, finished: await finishFrontier(sql, task.crawlId, task.worker) }) + '\n',
            );
            return;
          }
          await sleep(2);
          continue;
        }
        // The fetches.
        await sleep(2);
        got.push(...claims.map((c) => c.url));
        await markDone(sql, { crawlId: task.crawlId, worker: task.worker, ids: claims.map((c) => c.id) });
      }
    }
    const held: [number, number][] = [];
    const startAts: number[] = [];
    const limits = { concurrency: task.concurrency, delayMs: task.delayMs };
    await Promise.all(
      Array.from({ length: task.acquirers }, async () => {
        for (let i = 0; i < task.requests; ) {
          const a = await acquireHostSlot(sql, {
            crawlId: task.crawlId,
            host: task.host,
            worker: task.worker,
            limits,
            leaseMs: 10_000,
          });
          if (a.kind === 'wait') {
            await sleep(a.waitMs);
            continue;
          }
          await sleep(Math.max(0, a.slot.startAt - Date.now()));
          const start = Date.now();
          startAts.push(a.slot.startAt);
          await sleep(task.holdMs);
          held.push([start, Date.now()]);
          await releaseHostSlot(sql, a.slot);
          i++;
        }
      }),
    );
    process.stdout.write(JSON.stringify({ held, startAts }) + '\n');
  } finally {
    store.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
