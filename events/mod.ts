/**
 * The event log: schemas, the store interface, the SQLite store, upcasters and migrations.
 *
 * @example
 * ```ts
 * import { SqliteEventStore } from "./mod.ts";
 * const store = SqliteEventStore.open(":memory:");
 * store.close();
 * ```
 *
 * @module
 */
export * from "./schemas.ts";
export * from "./event_store.ts";
export * from "./sqlite_event_store.ts";
export * from "./upcasters.ts";
export * from "./migrations.ts";
