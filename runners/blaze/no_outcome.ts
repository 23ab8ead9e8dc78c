/**
 * Kept apart from the blaze session so the CLI's recovery of a dead daemon loads no browser code.
 *
 * @module
 */

/**
 * The `error` of the `ActionCompleted` an end records for an action whose call had not finished
 * (a tap on a page running an endless script, ended by force): its outcome is unknown, so it is
 * a failed call (the optimizer drops it; a step with nothing else is `recordable: false`), not a
 * step a replay would repeat.
 */
export const NO_OUTCOME =
  "no outcome: the call had not finished when the session ended, so whether it acted is unknown";
