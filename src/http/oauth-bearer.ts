// The resource-server side of OAuth for /mcp: the bearer check of src/http/mcp.ts asks this verifier about an
// access token, and wants the SDK's own error class for a 401. The authorization server decides (in auth, with
// its own errors); this adapter only translates, so the sign-in itself needs nothing of the SDK.
import { OAuthError as SdkOAuthError, OAuthErrorCode, type AuthInfo } from '@modelcontextprotocol/server';
import { OAuthError } from '../auth/oauth/errors.js';
import type { AuthorizationServer } from '../auth/oauth/authorization-server.js';

export interface BearerVerifier {
  /** The protected resource: <public URL>/mcp. */
  resource: string;
  verifyAccessToken(token: string): Promise<AuthInfo>;
}

export function bearerVerifier(server: AuthorizationServer): BearerVerifier {
  return {
    resource: server.resource,
    async verifyAccessToken(token) {
      try {
        return await server.verifyAccessToken(token);
      } catch (err) {
        if (err instanceof OAuthError && err.code === 'invalid_token')
          throw new SdkOAuthError(OAuthErrorCode.InvalidToken, err.message);
        throw err;
      }
    },
  };
}
