import { DatabaseSync } from "node:sqlite";
import { UnreadableEventError, upcast } from "../../events/upcasters.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { CURRENT_SCHEMA_VERSION, type StoredEvent } from "../../events/schemas.ts";
import { assertEquals, assertRejects, assertThrows } from "../_fixtures/assert.ts";

const H = "a".repeat(64);
const S = "b".repeat(64);

Deno.test("upcast() lifts ScreenCaptured v1 flat hashes to v2 blob refs", () => {
  const v1 = {
    hierarchyHash: H,
    hierarchySize: 1200,
    format: "uiautomator2",
    screenshotHash: S,
    screenshotSize: 34000,
    url: "app://main",
  };
  const { data, schemaVersion } = upcast("ScreenCaptured", 1, v1);
  assertEquals(schemaVersion, CURRENT_SCHEMA_VERSION.ScreenCaptured);
  assertEquals(data, {
    hierarchy: { hash: H, mediaType: "application/xml", size: 1200 },
    format: "uiautomator2",
    screenshot: { hash: S, mediaType: "image/png", size: 34000 },
    url: "app://main",
  });
  const json = upcast("ScreenCaptured", 1, {
    hierarchyHash: H,
    hierarchySize: 5,
    format: "chrome",
  });
  assertEquals(json.data, {
    hierarchy: { hash: H, mediaType: "application/json", size: 5 },
    format: "chrome",
  });
});

Deno.test("upcast() raises on unknown types, newer versions and misshapen old data", () => {
  assertThrows(
    () => upcast("ScreenZapped", 1, {}),
    UnreadableEventError,
    "Unknown event type",
  );
  assertThrows(() => upcast("StepStarted", 99, {}), UnreadableEventError, "newer than this Cairn");
  assertThrows(() => upcast("ScreenCaptured", 0, {}), UnreadableEventError, "No upcaster");
  assertThrows(
    () => upcast("ScreenCaptured", 1, { format: "chrome" }),
    UnreadableEventError,
    "hierarchyHash",
  );
});

Deno.test("SqliteEventStore reads v1 ScreenCaptured rows upcast, leaving stored rows as written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_upcast_" });
  const path = `${dir}/cairn.db`;
  try {
    const store = SqliteEventStore.open(path);
    await store.append("session-a", [{ type: "StepStarted", data: { index: 0, text: "Open" } }]);
    store.close();
    const raw = new DatabaseSync(path);
    const v1 = JSON.stringify({ hierarchyHash: H, hierarchySize: 10, format: "xcuitest" });
    raw.prepare(
      "INSERT INTO events VALUES (2, 'session-a', 2, 'ScreenCaptured', 1, ?, '{\"recordedAt\":\"2024-01-01T00:00:00.000Z\"}')",
    ).run(v1);
    raw.close();

    const again = SqliteEventStore.open(path);
    const events: StoredEvent[] = [];
    for await (const e of again.readStream("session-a")) events.push(e);
    again.close();
    const screen = events[1]!;
    assertEquals(screen.type, "ScreenCaptured");
    assertEquals(screen.schemaVersion, 2);
    assertEquals(screen.data, {
      hierarchy: { hash: H, mediaType: "application/xml", size: 10 },
      format: "xcuitest",
    });
    const check = new DatabaseSync(path);
    const row = check.prepare("SELECT schema_version, data FROM events WHERE position = 2").get();
    check.close();
    assertEquals({ ...row }, { schema_version: 1, data: v1 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteEventStore raises on a stored row of unknown type instead of skipping it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_upcast_" });
  const path = `${dir}/cairn.db`;
  try {
    SqliteEventStore.open(path).close();
    const raw = new DatabaseSync(path);
    raw.exec(
      `INSERT INTO events VALUES (1, 'session-x', 1, 'FutureThingHappened', 1, '{}', '{"recordedAt":"x"}');
       INSERT INTO streams VALUES ('session-x', 1, 'x')`,
    );
    raw.close();
    const store = SqliteEventStore.open(path);
    try {
      await assertRejects(
        async () => {
          for await (const _ of store.readAll()) { /* read */ }
        },
        UnreadableEventError,
        "FutureThingHappened",
      );
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
