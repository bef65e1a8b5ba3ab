/**
 * Headers every response of a JSON API should carry. Set when the request arrives, so a route
 * that sets its own (the public card's `Cache-Control: public, max-age=60`) overrides them, and
 * so the card path pays one `reply.headers()` call and no extra hook.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  // Authenticated answers must not be stored by shared caches; public routes set their own.
  'cache-control': 'no-store',
});
