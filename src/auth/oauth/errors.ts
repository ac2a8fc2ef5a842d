// The errors of the authorization server, as RFC 6749 (and RFC 7591, 8707) name them: a code, a description a
// developer can act on, and the HTTP status of a direct answer. Ours, so no endpoint depends on an SDK's classes.

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'invalid_target'
  | 'invalid_token'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'too_many_requests'
  | 'method_not_allowed'
  | 'server_error';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    message: string,
    readonly status = code === 'server_error' ? 500 : 400,
  ) {
    super(message);
    this.name = 'OAuthError';
  }

  toResponseObject(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}
