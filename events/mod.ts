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
export * from "./sqlite_file.ts";
export * from "./upcasters.ts";
export * from "./migrations.ts";
export * from "./exact_check.ts";
export * from "./iso_date_time.ts";
export * from "./log_copy.ts";
export * from "./postgres_event_store.ts";
export * from "./postgres_queue.ts";
