// An Express app (the MCP SDK's OAuth and bearer handlers are Express middleware) run on one request of our
// node:http server, as a step of a route handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';

/** 'answered' when the app sent the answer (or the client went away), 'next' when it passed the request on. */
export function runExpress(app: Express, req: IncomingMessage, res: ServerResponse): Promise<'answered' | 'next'> {
  return new Promise((resolve, reject) => {
    const answered = () => resolve('answered');
    res.once('finish', answered);
    res.once('close', answered);
    app(req as Request, res as Response, (err?: unknown) => {
      res.off('finish', answered);
      res.off('close', answered);
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve('next');
    });
  });
}
