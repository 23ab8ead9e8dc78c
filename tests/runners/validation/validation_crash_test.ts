/**
 * A validation or playback whose run breaks mid-way (the browser dies, the store refuses) still
 * ends its stream with a `failed` completion, and the caller still gets the original error.
 * Real Chromium, real SQLite in a temp dir; the dying browser and the refusing store are
 * stand-ins wrapping the real ones (a real browser cannot be made to die on cue here).
 */
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import type { Driver } from "../../../drivers/driver.ts";
import {
  readValidation,
  runValidation,
  validationStream,
} from "../../../runners/validation/runner.ts";
import {
  playbackStream,
  readPlaybackReport,
  runPlayback,
} from "../../../runners/playback/runner.ts";
import type { EventStore } from "../../../events/event_store.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { NewEvent, StoredEvent } from "../../../events/schemas.ts";
import { blazeShop } from "../../_fixtures/validation_capture.ts";
import { serveVaryingShop, type VaryingShop } from "../../_fixtures/validation_server.ts";

interface Rig {
  store: SqliteEventStore;
  driver: ChromeDriver;
  shop: VaryingShop;
}

async function withRig(fn: (rig: Rig) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validation-crash-" });
  const shop = await serveVaryingShop();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    await fn({ store, driver, shop });
  } finally {
    await driver.close();
    store.close();
    await shop.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Stand-in: the real browser until its first `navigate`, then every call throws (it died). */
function dyingBrowser(real: Driver): Driver {
  let dead = false;
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      // what the driver kept (the dialogs it answered, how the page last answered) is no call
      // to the browser
      if (prop === "takeDialogs" || prop === "documentAnswer") return value.bind(target);
      return (...args: unknown[]) => {
        if (prop === "navigate") dead = true;
        if (dead) {
          return Promise.reject(new Error(`Target closed: the browser died (${String(prop)})`));
        }
        return value.apply(target, args);
      };
    },
  });
}

/** Stand-in: the real store, except that it refuses the `n`-th append to `stream` (once). */
function refusingStore(real: EventStore, stream: string, n: number): EventStore {
  let seen = 0;
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "append") return value.bind(target);
      return (id: string, events: NewEvent[], opts?: unknown) => {
        if (id === stream && ++seen === n) {
          return Promise.reject(new Error("disk I/O error: the store refused the append"));
        }
        return value.call(target, id, events, opts);
      };
    },
  });
}

async function streamEvents(store: EventStore, id: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of store.readStream(id)) out.push(e);
  return out;
}

Deno.test("runValidation() ends the stream with ValidationCompleted failed and rethrows when the browser dies mid-way", async () => {
  await withRig(async ({ store, driver, shop }) => {
    const sessionId = await blazeShop(driver, store, shop.url);
    const validationId = "val-crash-browser";
    const err = await assertRejects(
      () => runValidation(dyingBrowser(driver), store, sessionId, { url: shop.url, validationId }),
      Error,
      "the browser died",
    );
    assert(err instanceof Error);
    const events = await streamEvents(store, validationStream(validationId));
    assertEquals(events[0]?.type, "ValidationStarted");
    const last = events.at(-1)!;
    assert(last.type === "ValidationCompleted", `last event: ${last.type}`);
    assertEquals(last.data.status, "failed");
    assertStringIncludes(last.data.message ?? "", "the browser died");
    assertEquals(events.filter((e) => e.type === "ValidationCompleted").length, 1);
    const state = await readValidation(store, validationId);
    assertEquals(state?.status, "failed");
    assertStringIncludes(state?.message ?? "", "the browser died");
  });
});

Deno.test("runValidation() ends the stream failed and rethrows the store's error when the store refuses an iteration", async () => {
  await withRig(async ({ store, driver, shop }) => {
    const sessionId = await blazeShop(driver, store, shop.url);
    const validationId = "val-crash-store";
    // Append 1 is ValidationStarted, append 2 the first iteration: refused.
    const flaky = refusingStore(store, validationStream(validationId), 2);
    await assertRejects(
      () => runValidation(driver, flaky, sessionId, { url: shop.url, validationId }),
      Error,
      "the store refused the append",
    );
    const types = (await streamEvents(store, validationStream(validationId))).map((e) => e.type);
    assertEquals(types, ["ValidationStarted", "ValidationCompleted"]);
    const state = await readValidation(store, validationId);
    assertEquals(state?.status, "failed");
    assertEquals(state?.iteration, 0);
    assertStringIncludes(state?.message ?? "", "during iteration 1");
  });
});

Deno.test("runPlayback() ends the stream with PlaybackCompleted failed and rethrows when the store refuses an action's event", async () => {
  await withRig(async ({ store, driver, shop }) => {
    const playbackId = "pb-crash-store";
    // Append 1 is PlaybackStarted, append 2 the first action, append 3 the second: refused.
    const flaky = refusingStore(store, playbackStream(playbackId), 3);
    await assertRejects(
      () =>
        runPlayback(driver, flaky, {
          source: { kind: "actions" },
          platform: "web",
          actions: [
            { type: "navigate", url: shop.url },
            { type: "navigate", url: shop.url },
            { type: "navigate", url: shop.url },
          ],
        }, { playbackId, overlay: false }),
      Error,
      "the store refused the append",
    );
    const events = await streamEvents(store, playbackStream(playbackId));
    assertEquals(events.map((e) => e.type), [
      "PlaybackStarted",
      "PlaybackActionCompleted",
      "PlaybackCompleted",
    ]);
    const report = await readPlaybackReport(store, playbackId);
    assertEquals(report?.status, "failed");
  });
});

Deno.test("runValidation() stopped by its signal stops the replay and ends the stream failed with the reason", async () => {
  await withRig(async ({ store, driver, shop }) => {
    const sessionId = await blazeShop(driver, store, shop.url);
    const validationId = "val-stopped";
    const stop = new AbortController();
    stop.abort(new Error("Stopped: the server is shutting down"));
    await assertRejects(
      () =>
        runValidation(driver, store, sessionId, {
          url: shop.url,
          validationId,
          signal: stop.signal,
        }),
      Error,
      "the server is shutting down",
    );
    const replay = await readPlaybackReport(store, `${validationId}-1`);
    assertEquals([replay?.status, replay?.results.length], ["failed", 0]);
    const state = await readValidation(store, validationId);
    assertEquals(state?.status, "failed");
    assertStringIncludes(state?.message ?? "", "during iteration 1: Error: Stopped");
  });
});
