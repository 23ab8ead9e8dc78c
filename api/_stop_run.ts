/**
 * The one sequence of `POST /v1/playbacks/:id/stop` and `POST /v1/validations/:id/stop`: a run
 * that has ended is a 409 `<kind>_ended`, a run this server does not run a 409 `not_owned`, else
 * its registry stops it and the run is read again for the answer. A run whose process is gone
 * (no other process has the log open) is ended `failed` there and then, when the server can tell.
 *
 * @module
 */
import { ApiError } from "./errors.ts";

/** What a stop route knows of its kind of run. */
export interface StopRun<R extends { status: string }> {
  kind: "playback" | "validation";
  /** The run's report or state from the log (undefined while it has no events). */
  read(): Promise<R | undefined>;
  /** Stops the run; false when this server's registry does not run it. */
  stop(): Promise<boolean>;
  /** Who runs a run the registry does not (`another process's`). */
  runByOthers: string;
  /**
   * Ends the run when the process that ran it is gone (`cairn replay` killed with SIGKILL);
   * false when another process may still run it.
   */
  endOrphan?: () => Promise<boolean>;
}

/**
 * Stops a run, as its stop route answers.
 *
 * @param id the run's bare id
 * @param run how to read and stop it
 * @returns the run read after the stop (still `running` when it is still stopping)
 * @throws {ApiError} 409 when it has ended or is not this server's to stop
 */
export async function stopRun<R extends { status: string }>(
  id: string,
  run: StopRun<R>,
): Promise<R> {
  const Kind = run.kind[0]!.toUpperCase() + run.kind.slice(1);
  const before = await run.read();
  if (before && before.status !== "running") {
    throw new ApiError(
      409,
      `${run.kind}_ended`,
      `${Kind} ${id} has already ended (${before.status})`,
    );
  }
  if (!(await run.stop()) && !(await run.endOrphan?.())) {
    throw new ApiError(
      409,
      "not_owned",
      `${Kind} ${id} is not run by ${run.runByOthers}: stop what runs it`,
    );
  }
  return (await run.read())!;
}
