/**
 * The closed vocabularies of a manifest, as lists (the schema's enums) and as types. A file of its
 * own, importing nothing, so the manifest schema and the domain types can both use them without an
 * import cycle (issue 29).
 */
export const CAPABILITY_STATES = ['preview', 'ga', 'deprecated', 'removed'] as const;
export const VISIBILITIES = ['public', 'extended', 'internal'] as const;
export type CapabilityState = (typeof CAPABILITY_STATES)[number];
export type Visibility = (typeof VISIBILITIES)[number];
export const COST_CLASSES = ['low', 'medium', 'high'] as const;
export type CostClass = (typeof COST_CLASSES)[number];
