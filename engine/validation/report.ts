/**
 * The validation report: the fold of `validation-<id>` (see `decider.ts`) as the JSON the CLI
 * (`--json`) and `GET /v1/validations/:id` return, and the per-step table the CLI prints.
 *
 * @module
 */
import type { EventData } from "../../events/mod.ts";
import type { ValidationState } from "./decider.ts";

type Step = EventData<"ValidationCompleted">["steps"][number];

/** The report of a validation, running or done. */
export interface ValidationReport {
  validation_id: string;
  session_id: string;
  policy: ValidationState["policy"];
  /** `running` until `ValidationCompleted`, then stable | unstable | failed. */
  status: "running" | "stable" | "unstable" | "failed";
  url?: string;
  iterations: number;
  max_iterations: number;
  /** Each replay: its playback id, whether every step passed, each step's verdict. */
  runs: { iteration: number; playback_id: string; passed: boolean; steps: Step[] }[];
  /**
   * Per step: stable, refined, unstable, skipped (not validated: a memory value is missing) or
   * not_recordable (the agent's step), with the evidence (the final verdict once done).
   */
  steps: Step[];
  /** The trail YAML: the latest replayed, or the final one once done. */
  trail: string;
  message?: string;
}

/**
 * Builds the report from a validation's state.
 *
 * @param state the folded state (`readValidation` of `runners/validation/runner.ts`)
 * @returns the report
 * @example
 * ```ts
 * import { initialState } from "./decider.ts";
 * const r = validationReport({ ...initialState, status: "running", validationId: "v1", sessionId: "s1" });
 * if (r.status !== "running" || r.runs.length !== 0) throw new Error();
 * ```
 */
export function validationReport(state: ValidationState): ValidationReport {
  const latest = state.iterations.at(-1);
  return {
    validation_id: state.validationId,
    session_id: state.sessionId,
    policy: state.policy,
    status: state.status === "new" ? "running" : state.status,
    ...(state.url ? { url: state.url } : {}),
    iterations: state.iteration,
    max_iterations: state.maxIterations,
    runs: state.iterations.map((i) => ({
      iteration: i.iteration,
      playback_id: i.playbackId,
      passed: i.passed,
      steps: i.steps,
    })),
    steps: state.finalSteps ?? latest?.steps ?? [],
    trail: state.trail,
    ...(state.message ? { message: state.message } : {}),
  };
}

/**
 * The per-step table the CLI prints: status (`empty` for an empty recording), step and the
 * first telling line of evidence.
 *
 * @param report the report
 * @returns lines of text
 */
export function renderStepTable(report: ValidationReport): string {
  // an empty recording passes but proves nothing: it is listed as what it is, not "stable"
  const label = (s: Step) => s.empty ? "empty" : s.status;
  const width = Math.max(8, ...report.steps.map((s) => label(s).length));
  const indent = " ".repeat(width + 4);
  const lines = report.steps.map((s) => {
    const why = s.evidence.find((e) =>
      /refined from|not refined|not validated: it failed only/.test(e)
    ) ??
      s.evidence.find((e) => !/same element|resolved with|moved by/.test(e)) ??
      s.evidence[0] ?? "";
    return `${label(s).padEnd(width)} ${String(s.index + 1).padStart(2)}. ${s.step}${
      why ? `\n${indent}${why}` : ""
    }`;
  });
  return lines.join("\n");
}
