/**
 * Compile-time completeness (issue 29, ADR 0213). A table that must say something about every
 * field of a type is written `{ … } satisfies EveryField<T, V>`: a new field of T is a compile
 * error until the table names it, and a removed or misspelt one is an excess property.
 */
export type EveryField<T, V> = { [K in keyof T]-?: V };

/**
 * true when A and B have exactly the same keys, false otherwise. For shapes that cannot be derived
 * from the schema (a GraphQL class with decorators): `type X = AssertTrue<SameKeys<Model, Domain>>`.
 */
export type SameKeys<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never] ? true : false;

/** Compiles only for `true`. */
export type AssertTrue<T extends true> = T;
