/**
 * The examples of the OpenAPI document (`.openapi('Sale', { example: SALE })`) live beside each
 * domain's schemas, in its examples.ts. Typed with the schema's own type they would be circular (the
 * schema's type would depend on its example's), so an example keeps the type of what is written:
 * `example({...})` keeps strings as their literals (enum values) and leaves arrays writable, and
 * `.openapi()` checks it against the schema's input. tests/platform/openapi-docs.test.ts holds every
 * example to its schema.
 */
type Written<T> = T extends object ? { -readonly [K in keyof T]: Written<T[K]> } : T;

export const example = <const T>(value: T): Written<T> => value as Written<T>;
