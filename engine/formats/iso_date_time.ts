/**
 * The date-times the import formats take: {@linkcode IsoDateTime} of `events/iso_date_time.ts`,
 * where the event log's `meta.recordedAt` is held to the same rule.
 *
 * @module
 */
export { isIsoDateTime, IsoDateTime, LATEST_TIME } from "../../events/mod.ts";
