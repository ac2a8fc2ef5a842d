// The floor of any crawl built on our two mandated libraries: fetch a known list of pages with undici (one Agent,
// keep-alive, `concurrency` connections) and parse each with htmlparser2 on a second thread, with empty handlers.
// No link discovery (the list is given), no text, no links, no storage, no index: nothing svc does beyond the two
// libraries. bench:crawl runs it as a third tool, so its table shows how much of a crawl's time these alone take.
//   node dist/bench/lib/crawl-floor.js URL_LIST_FILE CONCURRENCY USER_AGENT   → prints {"pages": n, "bytes": n}
import { readFileSync } from 'node:fs';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';

async function fetchAll(
  urls: string[],
  concurrency: number,
  userAgent: string,
): Promise<{ pages: number; bytes: number }> {
  const { Agent, request } = await import('undici');
  const agent = new Agent({ connections: concurrency });
  const parser = new Worker(new URL(import.meta.url));
  let next = 0;
  let bytes = 0;
  let sent = 0;
  let parsed = 0;
  let allParsed: () => void = () => {};
  const done = new Promise<void>((resolve) => (allParsed = resolve));
  parser.on('message', () => {
    if (++parsed === urls.length) allParsed();
  });
  const worker = async () => {
    while (next < urls.length) {
      const res = await request(urls[next++]!, { dispatcher: agent, headers: { 'user-agent': userAgent } });
      const body = await res.body.arrayBuffer();
      bytes += body.byteLength;
      sent++;
      parser.postMessage(body, [body]);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (sent) await done;
  await parser.terminate();
  await agent.close();
  return { pages: sent, bytes };
}

async function parseForever(): Promise<void> {
  const { Parser } = await import('htmlparser2');
  const decoder = new TextDecoder();
  parentPort!.on('message', (body: ArrayBuffer) => {
    const p = new Parser(
      { onopentag() {}, ontext() {} },
      { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
    );
    p.write(decoder.decode(body));
    p.end();
    parentPort!.postMessage(1);
  });
}

if (isMainThread) {
  const urls = readFileSync(process.argv[2]!, 'utf8').split('\n').filter(Boolean);
  const result = await fetchAll(urls, Number(process.argv[3] ?? 16), process.argv[4] ?? 'svc-bench-floor');
  console.log(JSON.stringify(result));
} else {
  await parseForever();
}
