// A request the client abandons (the connection closes while its body is still being read) is the client's doing,
// not a failure of the server: one info line naming the method and path, no error level and no stack.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/http-server.js';
import { readBody, sendJson } from '../../src/http/io.js';
import { createLogger } from '../../src/lib/log.js';
import { until } from '../support/wait.js';

describe('a request the client abandons', () => {
  const lines: Record<string, unknown>[] = [];
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const logger = createLogger('debug', { write: (line) => void lines.push(JSON.parse(line)) });
    server = createHttpServer({
      logger,
      handlers: [
        async (req, res, url) => {
          if (url.pathname !== '/upload') return false;
          const body = await readBody(req, 1 << 20);
          sendJson(res, 200, { bytes: body.length });
          return true;
        },
      ],
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('is logged at info with its method and path, without an error or a stack', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(
      'POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n0123456789',
    );
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();
    const line = await until('the log line of /upload', () => lines.find((l) => l.path === '/upload'), 10_000);
    expect(line).toMatchObject({ level: 30, method: 'POST', path: '/upload' });
    expect(String(line.msg)).toMatch(/abandoned/);
    expect(JSON.stringify(line)).not.toMatch(/stack|"err"/);
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
  });
});
