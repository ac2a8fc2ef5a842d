// Request/response helpers shared by every HTTP route: bounded body reading, JSON answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readCapped } from '../lib/read-capped.js';

/** An answer with a status and a JSON body, thrown from a route and written by the server. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export type HttpHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** Reads the whole body, refusing more than maxBytes with 413 (before reading it all when Content-Length says so). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    throw new HttpError(413, 'payload_too_large', `request body is larger than ${maxBytes} bytes`);
  }
  // Not destroyed when the cap stops the read: the rest is drained, so the client still reads the 413.
  return readCapped(req.iterator({ destroyOnReturn: false }), maxBytes, () => {
    req.resume();
    return new HttpError(413, 'payload_too_large', `request body is larger than ${maxBytes} bytes`);
  });
}

/** The media type of a request's body, lower-cased, without its parameters ('' when none is named). */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Reads a JSON body: 415 unless Content-Type is application/json, 400 when it does not parse. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  if (mediaType(req) !== 'application/json') {
    req.resume();
    throw new HttpError(400, 'invalid_content_type', 'Content-Type must be application/json');
  }
  const body = await readBody(req, maxBytes);
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'invalid_json', 'request body is not valid JSON');
  }
}

/** The WWW-Authenticate header of a 401: the realm, and whether the token sent was not a valid one. */
export function bearerChallenge(invalidToken: boolean): Record<string, string> {
  return { 'www-authenticate': invalidToken ? 'Bearer realm="svc", error="invalid_token"' : 'Bearer realm="svc"' };
}

/** What a caller over HTTP does to set a current user. */
export const BEARER_HINT =
  'send the header "Authorization: Bearer <user token>" (a token from: svc users add <login> --role administrator)';

/** The MCP endpoint; the server's guard answers it in JSON-RPC too. */
export const MCP_PATH = '/mcp';

/** JSON-RPC error shape the SDK's transport uses for its own HTTP-level refusals. */
export function sendRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}

/** A request header's value (the first, when a client sent it twice). */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The token of an `Authorization: Bearer <token>` header; null when absent; undefined when malformed. */
export function bearerToken(req: IncomingMessage): string | null | undefined {
  const h = req.headers.authorization;
  if (h === undefined) return null;
  const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(h);
  return m ? m[1] : undefined;
}
