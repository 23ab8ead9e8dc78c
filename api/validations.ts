/**
 * Validations over HTTP: `POST /v1/sessions/:id/validations` starts the validation loop of a
 * capture and answers at once with its id; `GET /v1/validations/:id` answers with the progress
 * (the runs so far) and, once done, the report (steps with evidence, the final trail).
 * A registry per event store owns the browser validations replay in; one runs at a time.
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { type EventStore, streamInfo } from "../events/mod.ts";
import type { Driver } from "../drivers/mod.ts";
import { launchDefaultChrome, perStore } from "./per_store.ts";
import {
  MemoryKeyError,
  PlatformMismatchError,
  readValidation,
  startValidation,
  ValidationBusyError,
} from "../runners/validation/mod.ts";
import { DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS, policyFlags } from "../engine/validation/mod.ts";
import {
  AnsweredValidationQueued,
  AnsweredValidationReport,
  AnsweredValidationStarted,
  validationReport,
} from "../engine/validation/mod.ts";
import { HEURISTICS_VERSIONS } from "../engine/trail/mod.ts";
import type { ApiContext } from "./app.ts";
import { ApiError, httpUrl, noQuery, parseInput, pathId, readJson } from "./errors.ts";
import { bareId, resolveId } from "./_ids.ts";
import { runQueueOf } from "../events/mod.ts";
import { stopRun } from "./_stop_run.ts";
import { describeRoute, describeSchema } from "./openapi.ts";
import { browserSecrets, freshTab, leaveBrowser } from "./_shared_browser.ts";
import {
  endsWithin,
  MemoryValues,
  STOP_GRACE_MS,
  STOP_WAIT_MS,
  STOPPED_BY_REQUEST,
} from "./playbacks.ts";

const Id = pathId();

/** Body of `POST /v1/sessions/:id/validations` (every field optional: an empty body is `{}`). */
export const StartValidationBody = z.object({
  /** The url every replay opens (default: the capture's). */
  url: httpUrl().optional(),
  policy: z.enum(["authoring", "dev", "ci"]).default("authoring"),
  /** Replays at most (authoring only: dev replays at most 2 times, ci once). Default 3. */
  max_iterations: z.number().int().min(1).max(MAX_ITERATIONS).optional(),
  mode: z.enum(["strict", "flexible", "adaptive"]).optional(),
  /** Heuristics version the capture is projected at (default the current one). */
  heuristics: z.enum(HEURISTICS_VERSIONS as [string, ...string[]]).optional(),
  /** Values of the trail's memory keys (a password kept as null) for the replays; never stored. */
  memory: MemoryValues.optional(),
}).strict().refine(
  (b) =>
    b.max_iterations === undefined || b.policy === "authoring" ||
    b.max_iterations === policyFlags(b.policy).maxIterations,
  {
    path: ["max_iterations"],
    message: "only the authoring policy takes maxIterations (dev replays at most 2 times, ci once)",
  },
);

/** How the registry gets its browser. */
export interface ValidationRegistryOptions {
  /** Creates the browser validations replay in (default: headless Chromium, or `CAIRN_BROWSER_WS`). */
  createDriver?: () => Promise<Driver>;
  /** How long a lookup waits for the page before the cascade gives up (ms). */
  locateWaitMs?: number;
}

/** The browser of one store's validations and the validation it runs. */
export class ValidationRegistry {
  #store: EventStore;
  #options: ValidationRegistryOptions;
  #driver: Promise<Driver> | undefined;
  #running: Promise<unknown> | undefined;
  /** The running validation: its id and how to stop it alone. */
  #current: { id: string; stop: AbortController; done: Promise<unknown> } | undefined;
  /** Aborted by `close`: the running validation stops. */
  #stop = new AbortController();

  constructor(store: EventStore, options: ValidationRegistryOptions = {}) {
    this.#store = store;
    this.#options = options;
  }

  /** The id of the validation this registry runs, if any. */
  get currentId(): string | undefined {
    return this.#current?.id;
  }

  /** The end of the validation this registry runs (undefined: not this one). */
  finished(id: string): Promise<unknown> | undefined {
    return this.#current?.id === id ? this.#current.done : undefined;
  }

  /** Replaces the options (a test's driver, a remote browser). */
  configure(options: ValidationRegistryOptions): void {
    this.#options = { ...this.#options, ...options };
  }

  /**
   * Starts a validation.
   *
   * @param sessionId the capture session
   * @param body url, policy, iterations
   * @param validationId the id to run it under (a queued validation's; default a new one)
   * @returns the validation id
   * @throws {ApiError} 404 for an unknown session, 409 while another validation runs, 400 for a
   *   memory key the trail does not have
   */
  async start(
    sessionId: string,
    body: z.infer<typeof StartValidationBody>,
    validationId?: string,
  ): Promise<string> {
    if (!(await streamInfo(this.#store, `session-${sessionId}`))) {
      throw new ApiError(404, "not_found", `No session ${sessionId}`);
    }
    if (this.#running) {
      throw new ApiError(
        409,
        "validation_running",
        "A validation is already running; query it or wait",
      );
    }
    const marker = Promise.resolve();
    this.#running = marker;
    const stop = new AbortController();
    try {
      this.#driver ??= (this.#options.createDriver ?? launchDefaultChrome)().catch((err) => {
        this.#driver = undefined;
        throw err;
      });
      const driver = await this.#driver;
      // the browser is where the last run left it (no other validation runs there: 409 above):
      // this one starts in a fresh tab (the last run's closed; in a browser Cairn launched, in a
      // fresh browser context: no cookie or storage of a run before), and keeps the earlier
      // runs' secrets out too
      const secrets = browserSecrets(driver, Object.values(body.memory ?? {}));
      await freshTab(driver);
      const started = await startValidation(driver, this.#store, sessionId, {
        policy: body.policy,
        maxIterations: body.max_iterations ?? DEFAULT_MAX_ITERATIONS,
        ...(body.url ? { url: body.url } : {}),
        ...(body.mode ? { mode: body.mode } : {}),
        ...(body.heuristics ? { heuristics: body.heuristics } : {}),
        ...(body.memory ? { memory: body.memory } : {}),
        ...(secrets.length > 0 ? { secrets } : {}),
        // each replay starts clean, as the first does (the capture was made in a fresh browser)
        beforeReplay: () => freshTab(driver),
        ...(this.#options.locateWaitMs !== undefined
          ? { locateWaitMs: this.#options.locateWaitMs }
          : {}),
        signal: AbortSignal.any([this.#stop.signal, stop.signal]),
        ...(validationId === undefined ? {} : { validationId }),
      });
      // the validation's stream records how it ended; the server's log gets one line, no stack
      const done = started.done.catch((err) =>
        console.error(`cairn validation ${started.validationId}: ${(err as Error).message ?? err}`)
      )
        .finally(() => {
          if (this.#running === done) this.#running = undefined;
          if (this.#current?.done === done) this.#current = undefined;
        });
      this.#running = done;
      this.#current = { id: started.validationId, stop, done };
      return started.validationId;
    } catch (err) {
      if (this.#running === marker) this.#running = undefined;
      if (err instanceof ValidationBusyError) {
        throw new ApiError(409, "validation_running", err.message);
      }
      if (err instanceof MemoryKeyError) {
        // each key named as a bad body field is (body.memory.<key>), as POST /v1/playbacks does
        const issues = err.unknown.map((k) => ({ path: `body.memory.${k}`, message: err.message }));
        throw new ApiError(400, "invalid_request", err.message, issues);
      }
      if (err instanceof PlatformMismatchError) {
        throw new ApiError(400, "invalid_request", err.message);
      }
      throw err;
    }
  }

  /**
   * Stops the running validation, as shutdown does: its replay stops before its next action
   * and it ends `failed`, its message `Validation stopped during iteration N: Error: stopped by
   * request`. An action still running after {@linkcode STOP_GRACE_MS} fails as the browser is
   * closed (the next validation launches another).
   *
   * @param id the validation id
   * @returns false when this registry is not running that validation; true once it has ended,
   *   or is still ending after 15 s
   */
  async stop(id: string): Promise<boolean> {
    const run = this.#current;
    if (run?.id !== id) return false;
    run.stop.abort(new Error(STOPPED_BY_REQUEST));
    if (await endsWithin(run.done, STOP_GRACE_MS)) return true;
    await this.#closeBrowser();
    await endsWithin(run.done, STOP_WAIT_MS - STOP_GRACE_MS);
    return true;
  }

  async #closeBrowser(): Promise<void> {
    const d = this.#driver;
    this.#driver = undefined;
    const driver = await d?.catch(() => undefined);
    if (!driver) return;
    leaveBrowser(driver);
    await driver.close();
  }

  /**
   * Stops the running validation (it ends `failed`), closes the browser and waits for the
   * validation to end.
   */
  async close(): Promise<void> {
    this.#stop.abort(new Error("Stopped: the server is shutting down"));
    this.#stop = new AbortController();
    await this.#closeBrowser();
    await this.#running;
  }
}

/**
 * The validation registry of a store (created on first use).
 *
 * @param store the event store
 * @param options applied when given
 * @returns the registry
 */
export const validationRegistry: (
  store: EventStore,
  options?: ValidationRegistryOptions,
) => ValidationRegistry = perStore(
  (store, options?: ValidationRegistryOptions) => new ValidationRegistry(store, options),
);

/** `POST /v1/sessions/:id/validations` answer. */
export const ValidationStartedResponse = AnsweredValidationStarted;

/**
 * A validation's report as HTTP answers it (`GET /v1/validations/:id`, its stop's answer): the
 * report of `engine/validation/report.ts` with the camelCase names the API answers with.
 */
export const ValidationReportResponse = describeSchema(
  "ValidationReport",
  AnsweredValidationReport,
  "output",
);

/** `GET /v1/validations/:id` of a validation queued on a shared (PostgreSQL) log, not started. */
const ValidationQueuedResponse = describeSchema(
  "ValidationQueued",
  AnsweredValidationQueued,
  "output",
);

describeRoute({
  method: "post",
  path: "/v1/sessions/{id}/validations",
  summary: "Start the validation loop of a capture (replay, compare, refine); answers at once",
  tags: ["validations"],
  body: StartValidationBody,
  bodyOptional: true,
  responses: {
    "202": { description: "Started", schema: ValidationStartedResponse },
    "400": {
      description:
        "Invalid body (maxIterations with a policy other than authoring; a memory key that is empty or has an =), or a memory key the trail neither has nor reads (issues name body.memory.<key>)",
    },
    "404": { description: "No such session" },
    "409": { description: "Another validation is running" },
  },
});
describeRoute({
  method: "post",
  path: "/v1/validations/{id}/stop",
  summary:
    'Stop a running validation as shutdown does: its replay stops before its next action and it ends failed, message "Validation stopped during iteration N: Error: stopped by request"; answers with the final report',
  tags: ["validations"],
  responses: {
    "200": {
      description: "Stopped: the final report (status failed, message)",
      schema: ValidationReportResponse,
    },
    "202": {
      description: "Still stopping after 15 s: the report so far (status running)",
      schema: ValidationReportResponse,
    },
    "404": { description: "No such validation" },
    "409": {
      description:
        "The validation has already ended (validation_ended), or this server does not run it: another process's (not_owned)",
    },
  },
});
describeRoute({
  method: "get",
  path: "/v1/validations/{id}",
  summary: "A validation's progress (runs so far) and, once done, its report and final trail",
  tags: ["validations"],
  responses: {
    "200": {
      description:
        "The report (status running until it completes; or, queued on a shared log, `{ status: queued, validationId, attempts }`)",
      schema: z.union([ValidationReportResponse, ValidationQueuedResponse]),
    },
    "404": { description: "No such validation (`No validation <id>`)" },
  },
});

/**
 * The validations router (mounted under `/v1`).
 *
 * @param ctx the shared API context
 * @returns a hono router
 */
export function validationsRouter(ctx: ApiContext): Hono {
  const app = new Hono();
  const registry = validationRegistry(ctx.store);

  app.post("/sessions/:id/validations", async (c) => {
    const given = parseInput(Id, c.req.param("id"), "path.id");
    noQuery(c);
    // every field is optional: an empty body is {}
    const body = parseInput(StartValidationBody, await readJson(c, {}), "body");
    const id = await resolveId(ctx.store, "session", given);
    // on a log shared by several nodes (PostgreSQL) a `serve --worker` node runs it
    const queue = runQueueOf(ctx.store);
    if (queue) {
      const queuedId = `val-${crypto.randomUUID().slice(0, 12)}`;
      await queue.enqueue("validation", queuedId, { sessionId: id, body });
      return c.json({ status: "queued", validationId: queuedId }, 202);
    }
    const validationId = await registry.start(id, body);
    return c.json({ status: "running", validationId }, 202);
  });

  app.post("/validations/:id/stop", async (c) => {
    const given = parseInput(Id, c.req.param("id"), "path.id");
    noQuery(c);
    const id = await resolveId(ctx.store, "validation", given);
    const state = await stopRun(id, {
      kind: "validation",
      read: () => readValidation(ctx.store, id),
      stop: () => registry.stop(id),
      runByOthers: "this server (another process's)",
      endOrphan: async () => (await ctx.endOrphanedRun?.("validation", id)) ?? false,
    });
    return c.json(validationReport(state), state.status === "running" ? 202 : 200);
  });

  app.get("/validations/:id", async (c) => {
    const given = parseInput(Id, c.req.param("id"), "path.id");
    noQuery(c);
    // queued on a PostgreSQL log, no worker has started it yet
    const queued = await runQueueOf(ctx.store)?.get(bareId("validation", given));
    if (
      (queued?.status === "queued" || queued?.status === "running") &&
      !(await streamInfo(ctx.store, `validation-${queued.id}`))
    ) {
      return c.json({ status: "queued", validationId: queued.id, attempts: queued.attempts });
    }
    const id = await resolveId(ctx.store, "validation", given);
    const state = await readValidation(ctx.store, id);
    if (!state) throw new ApiError(404, "not_found", `No validation ${id}`);
    return c.json(validationReport(state));
  });

  return app;
}
