// npm run bench:sign-in-burst — how long one user's console sign-in takes while another client sends a burst of
// 40 bad sign-ins at once (distinct logins, one address), with the production password cost. `svc serve` runs as
// users run it; the user signs in from 127.0.0.2, the burst comes from 127.0.0.1. Each round starts a fresh server
// (the burst locks its address). Prints the user's sign-in time alone and during the burst (medians), and what the
// burst's requests were answered.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { percentile, printTable } from './lib/measure.js';
import { serve, SVC, svcEnv } from './lib/services.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BURST = 40;
const PASSWORD = 'the user password 1';

// Idle sockets are dropped before the server's keep-alive timeout (5 s) could close one under a new request.
const from = (localAddress: string) => new Agent({ localAddress, keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });
const burstAgent = from('127.0.0.1');
const userAgent = from('127.0.0.2');

/** One console sign-in as a browser does it: the page (cookie and form token), then the post. Its status. */
async function signIn(base: string, agent: Agent, login: string, password: string): Promise<number> {
  const page = await fetch(`${base}/console/`, { dispatcher: agent });
  const html = await page.text();
  const cookie = page.headers
    .getSetCookie()
    .find((c) => c.startsWith('svc_console_form='))!
    .split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const r = await fetch(`${base}/console/sign-in`, {
    dispatcher: agent,
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, login, password }).toString(),
  });
  await r.arrayBuffer();
  return r.status;
}

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await f();
  return { ms: performance.now() - t0, value };
}

async function main(): Promise<void> {
  const alone: number[] = [];
  const during: number[] = [];
  const burstMs: number[] = [];
  const statuses = new Map<number, number>();
  for (let round = 0; round < ROUNDS; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-sign-in-'));
    const config = join(dir, 'svc.json');
    writeFileSync(config, JSON.stringify({ data_dir: join(dir, 'data'), log_level: 'info' }));
    execFileSync(SVC, ['users', 'add', 'alice', '--role', 'subscriber', '--config', config], { env: svcEnv() });
    execFileSync(SVC, ['users', 'set-password', 'alice', '--config', config], { env: svcEnv(), input: PASSWORD });
    const server = await serve(['--config', config, '--port', '0']);
    try {
      // Warm up (the first check of an unknown login also makes the stand-in hash), then the user alone.
      await signIn(server.baseUrl, burstAgent, 'nobody-warm', 'wrong password');
      const a = await timed(() => signIn(server.baseUrl, userAgent, 'alice', PASSWORD));
      if (a.value !== 303) throw new Error(`alice alone: ${a.value}`);
      alone.push(a.ms);
      const burst = timed(() =>
        Promise.all(
          Array.from({ length: BURST }, (_, i) => signIn(server.baseUrl, burstAgent, `nobody${i}`, 'wrong password')),
        ),
      );
      await new Promise((r) => setTimeout(r, 300));
      const d = await timed(() => signIn(server.baseUrl, userAgent, 'alice', PASSWORD));
      if (d.value !== 303) throw new Error(`alice during the burst: ${d.value}`);
      during.push(d.ms);
      const b = await burst;
      burstMs.push(b.ms);
      for (const s of b.value) statuses.set(s, (statuses.get(s) ?? 0) + 1);
    } finally {
      await server.stop();
    }
  }
  const median = (xs: number[]) =>
    Math.round(
      percentile(
        [...xs].sort((x, y) => x - y),
        50,
      ),
    );
  printTable(
    ['rounds', 'user alone (ms, median)', 'user during burst (ms, median)', 'burst done (ms, median)', 'burst answers'],
    [[ROUNDS, median(alone), median(during), median(burstMs), [...statuses].map(([s, n]) => `${n}×${s}`).join(' ')]],
  );
  console.log(`each round: alone ${alone.map(Math.round).join(', ')}; during ${during.map(Math.round).join(', ')}`);
  await burstAgent.close();
  await userAgent.close();
}

await main();
