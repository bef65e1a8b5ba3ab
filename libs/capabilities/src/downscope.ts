/**
 * No confused deputy: a tool call made for a caller carries only the scopes the caller holds AND
 * the tool accepts, never the agent's own (the seed: "prefer downscoped credentials over the
 * agent's service account"). Sorted and without duplicates, so equal inputs give equal tokens.
 */
export function downscopedScopes(callerScopes: readonly string[], toolScopes: readonly string[]): string[] {
  const allowed = new Set(toolScopes);
  return [...new Set(callerScopes.filter((s) => allowed.has(s)))].sort();
}
