/**
 * The manifest fields the validator knows (libs/capabilities/src/manifest-schema.ts and
 * upstream.ts), for the editor's completion. A static copy: the console does not bundle zod or the
 * server libs; test/unit/console-manifest-fields.spec.ts fails when the schema gains a field that is
 * missing here. Keys are the parent object's path (`$` is the document), values its field names.
 */
export const MANIFEST_FIELDS: Record<string, readonly string[]> = {
  $: [
    'id',
    'state',
    'visibility',
    'skill',
    'requires_scopes',
    'tenants',
    'handler',
    'tools',
    'limits',
    'owner',
    'replaced_by',
    'deprecation_reason',
    'sunset_at',
    'routing',
    'upstream',
  ],
  skill: ['name', 'description', 'tags', 'examples', 'inputModes', 'outputModes'],
  limits: ['cost_class'],
  routing: ['terms', 'negative_terms'],
  upstream: ['url', 'binding', 'version', 'card', 'skill', 'timeouts', 'auth'],
  'upstream.timeouts': ['connect', 'request', 'idle'],
  'upstream.auth': ['kind', 'audience', 'scopes'],
};

/** The field names allowed in the object at `parent` (keys without array indices), or none. */
export function fieldsAt(parent: (string | number)[]): readonly string[] {
  const key = parent.filter((k) => typeof k === 'string').join('.');
  return MANIFEST_FIELDS[key || '$'] ?? [];
}
