/** Well-formedness rules for identifiers, shared by validation and tests. */

/** Capability ids: lowercase kebab, stable, what callers and registries key on. */
export const CAPABILITY_ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
export const CAPABILITY_ID_MAX = 64;

/** Handlers: dotted lowercase identifiers (`recon.v3.reconcile`); one segment is allowed. */
export const HANDLER = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*$/;
export const HANDLER_MAX = 128;

/** Tool names (the registry's Tool.name, what a handler passes to ctx.tools.call). */
export const TOOL_NAME = /^[a-z][a-z0-9._-]*$/;
export const TOOL_NAME_MAX = 64;
export const TOOLS_MAX = 32;

/** OAuth-style scopes: lowercase words joined by `.` or `:` (`recon.run`, `invoices:read`). */
export const SCOPE = /^[a-z][a-z0-9_-]*(?:[.:][a-z0-9][a-z0-9_-]*)*$/;

/** Tenant and team slugs: lowercase kebab, may start with a digit. */
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX = 63;

/** Limit keys: snake_case, like the seed's `max_pdf_pages`. */
export const LIMIT_KEY = /^[a-z][a-z0-9_]*$/;

// RFC 9110 media type: token "/" token, then optional `; name=value` parameters.
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
export const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\]*"))*$`);
