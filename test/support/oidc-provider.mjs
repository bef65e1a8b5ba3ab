// A real OpenID provider (the `oidc-provider` library) for the console's OIDC sign-in test, in its
// own process (the library is ESM-only; jest runs CommonJS). Parent: test/support/oidc-provider.ts.
// Authorization code + PKCE for one public client; access tokens are JWTs (RS256) for the control
// plane's audience (RFC 8707 resource indicator) carrying the admin claims the control plane reads
// (token_use, roles, teams) per account. The library's development login and consent pages stand
// in for the organisation's; an account id is whatever is typed as the login.
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const { PORT, CLIENT_ID, REDIRECT_URI, AUDIENCE, ACCOUNTS } = process.env;
const issuer = `http://127.0.0.1:${PORT}`;
/** { [accountId]: { roles: string[], teams: string[] } } */
const accounts = JSON.parse(ACCOUNTS ?? '{}');
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: CLIENT_ID,
      token_endpoint_auth_method: 'none',
      redirect_uris: [REDIRECT_URI],
      post_logout_redirect_uris: [new URL('/console/', REDIRECT_URI).href],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  jwks: { keys: [jwk] },
  scopes: ['openid', 'profile', 'admin'],
  pkce: { required: () => true },
  cookies: { keys: ['test-cookie-key-0123456789'] },
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  features: {
    devInteractions: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => AUDIENCE,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => {
        if (resource !== AUDIENCE) throw new Error(`unknown resource ${resource}`);
        return { scope: 'admin', audience: AUDIENCE, accessTokenTTL: 600, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  extraTokenClaims: (_ctx, token) => {
    if (token.kind !== 'AccessToken') return undefined;
    const account = accounts[token.accountId];
    return account ? { token_use: 'admin', roles: account.roles, teams: account.teams } : undefined;
  },
});
provider.listen(Number(PORT), '127.0.0.1', () => process.send?.({ ready: issuer }));
