// The one error type that crosses the backend boundary, for the embedded engine and the remote client alike.

export type BackendErrorCode =
  | 'invalid_input' // 400: the request names a bad field
  | 'not_found' // 404
  | 'conflict' // 409: a crawl is already running
  | 'not_implemented' // 501
  | 'upstream_error' // 502: the remote /v1 service failed or could not be reached
  | 'internal'; // 500

const STATUS: Record<BackendErrorCode, number> = {
  invalid_input: 400,
  not_found: 404,
  conflict: 409,
  not_implemented: 501,
  upstream_error: 502,
  internal: 500,
};

export class BackendError extends Error {
  readonly status: number;
  constructor(
    readonly code: BackendErrorCode,
    message: string,
    /** The remote service's HTTP status, when a remote call failed with one. */
    readonly upstreamStatus?: number,
  ) {
    super(message);
    this.name = 'BackendError';
    this.status = STATUS[code];
  }
}
