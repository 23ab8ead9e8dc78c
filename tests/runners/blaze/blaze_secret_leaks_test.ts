import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { BlazeSession, type ToolResult } from "../../../runners/blaze/session.ts";
import {
  readSession,
  sessionToCapture,
  sessionToRecording,
} from "../../../runners/record/session_export.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../../events/schemas.ts";
import { RecordingV1 } from "../../../engine/formats/recording_v1.ts";
import { parseChromeHierarchy } from "../../../engine/screens/chrome_hierarchy.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { stringifyTrail } from "../../../engine/trail/trail.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { ingestFile } from "../../../cli/ingest.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { buttonRef, refIn } from "../../_fixtures/blaze_refs.ts";
import { assertNoSecret } from "../../_fixtures/secret_forms.ts";

/** A password with every character form encoding treats specially. */
const PASSWORD = "p@ss w0rd!'()*~x";
const CARD = "4111111111111111";
const EMAIL = "ada@example.com";

interface Run {
  s: BlazeSession;
  driver: ChromeDriver;
  store: SqliteEventStore;
  base: string;
  /** Every result the agent was given. */
  results: ToolResult[];
  call(tool: string, params: Record<string, unknown>): Promise<ToolResult>;
}

/** Runs a blaze session on login.html, then hands back what it stored (events, blobs, exports). */
async function blaze(fn: (run: Run) => Promise<void>): Promise<{
  events: StoredEvent[];
  /** Every stored event, hierarchy and screenshot blob and both exports, as text. */
  stored: { where: string; text: string }[];
  results: ToolResult[];
  store: SqliteEventStore;
  sessionId: string;
  dir: string;
  cleanup: () => Promise<void>;
}> {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  const cleanup = async () => {
    store.close();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "login.html",
      prompt: "Sign in",
    });
    const results: ToolResult[] = [];
    const call = async (tool: string, params: Record<string, unknown>) => {
      const r = await s.call(tool, params);
      results.push(r);
      return r;
    };
    await fn({ s, driver, store, base: server.url, results, call });
    await s.end();
    const events: StoredEvent[] = [];
    for await (const e of store.readStream(s.streamId)) events.push(e);
    const stored = events.map((e) => ({
      where: `${e.type} #${e.streamVersion}`,
      text: JSON.stringify(e),
    }));
    for (const e of events) {
      if (e.type !== "ScreenCaptured") continue;
      for (const ref of [e.data.hierarchy, e.data.screenshot]) {
        if (!ref) continue;
        const bytes = (await store.getBlob(ref.hash)).bytes;
        stored.push({ where: `blob ${ref.hash}`, text: new TextDecoder("latin1").decode(bytes) });
      }
    }
    const data = await readSession(store, s.id);
    stored.push({ where: "capture export", text: JSON.stringify(sessionToCapture(data)) });
    stored.push({
      where: "recording_v1 export",
      text: JSON.stringify(RecordingV1.parse(sessionToRecording(data))),
    });
    return { events, stored, results, store, sessionId: s.id, dir, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  } finally {
    await driver.close();
    await server.close();
  }
}

/** The urls of the session's navigations and screens. */
function urls(events: StoredEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === "NavigationOccurred"
      ? [e.data.url]
      : e.type === "ScreenCaptured" && e.data.url
      ? [e.data.url]
      : []
  );
}

Deno.test("BlazeSession stores a password and a card number submitted by a GET form in no url, event, blob or export", async () => {
  const { events, stored, results, cleanup } = await blaze(async ({ call, driver }) => {
    const snap = (await call("snapshot", {})).output;
    assert((await call("type", { ref: refIn(snap, "Email"), text: EMAIL })).ok);
    assert((await call("type", { ref: refIn(snap, "Password"), text: PASSWORD })).ok);
    assert((await call("type", { ref: refIn(snap, "Card number"), text: CARD })).ok);
    assert((await call("tap", { ref: buttonRef(snap, "Sign in") })).ok);
    // the form really went out with the secrets in its url
    const url = new URL(driver.page.url());
    assertEquals(url.searchParams.get("password"), PASSWORD);
    assertEquals(url.searchParams.get("card"), CARD);
    await call("snapshot", {});
  });
  try {
    const welcome = urls(events).filter((u) => u.includes("welcome.html"));
    assert(welcome.length >= 2, `no welcome url: ${urls(events).join(", ")}`);
    for (const u of welcome) {
      assertStringIncludes(u, "email=ada%40example.com"); // a plain field's value is kept
      assertStringIncludes(u, "password=[redacted]");
      assertStringIncludes(u, "card=[redacted]");
    }
    for (const { where, text } of stored) {
      assertNoSecret(text, PASSWORD, where);
      assertNoSecret(text, CARD, where);
    }
    for (const r of results) {
      assertNoSecret(JSON.stringify(r), PASSWORD, `the result ${r.output}`);
      assertNoSecret(JSON.stringify(r), CARD, `the result ${r.output}`);
    }
  } finally {
    await cleanup();
  }
});

Deno.test("BlazeSession with a one-letter password keeps step text, outputs and hierarchies intact, and still optimizes and round-trips", async () => {
  const { events, stored, results, store, sessionId, dir, cleanup } = await blaze(
    async ({ call }) => {
      const snap = (await call("snapshot", {})).output;
      assert((await call("type", { ref: refIn(snap, "Email"), text: EMAIL, step: "Sign in" })).ok);
      const typed = await call("type", { ref: refIn(snap, "Password"), text: "e" });
      assertStringIncludes(typed.output, 'Typed "[redacted]" into textbox "Password"');
      // a common word as a secret must not rewrite the page's structure (type="password")
      assert((await call("type", { ref: refIn(snap, "Secret note"), text: "password" })).ok);
      const tap = await call("tap", {
        ref: buttonRef(snap, "Sign in"),
        step: "Press the sign in button",
      });
      assertEquals(tap.output.startsWith("Tapped button"), true, tap.output);
    },
  );
  try {
    assertEquals(
      events.flatMap((e) => e.type === "StepStarted" ? [e.data.text] : []),
      ["Sign in", "Press the sign in button"],
    );
    const welcome = urls(events).filter((u) => u.includes("welcome.html"));
    assert(welcome.length >= 1);
    for (const u of welcome) {
      const q = new URL(u).search;
      assertStringIncludes(q, "password=[redacted]");
      assertStringIncludes(q, "note=[redacted]");
      assertStringIncludes(q, "email=ada%40example.com");
    }
    for (const { where, text } of stored) {
      assert(!/password=e(&|$|")/.test(text), `${where} holds the password in a url`);
      assert(!text.includes("[redacted]d") && !text.includes("r[redacted]"), `${where}: ${text}`);
    }
    for (const r of results) assert(!r.output.includes("[redacted]d"), r.output);
    // every hierarchy is still a valid Chrome hierarchy, with its password field typed as such
    let passwordFields = 0;
    for (const e of events) {
      if (e.type !== "ScreenCaptured") continue;
      const json = new TextDecoder().decode((await store.getBlob(e.data.hierarchy.hash)).bytes);
      const screen = parseChromeHierarchy(json);
      for (const [n] of walk(screen.root)) if (n.password) passwordFields++;
    }
    assert(passwordFields > 0);
    // the session optimizes, and its capture export ingests again
    const { trail } = await projectSessionTrail(store, sessionId, { mode: "adaptive" });
    const yaml = stringifyTrail(trail);
    const defaults = Object.values(trail.config?.memory ?? {});
    assert(!defaults.includes("e") && !defaults.includes("password"), yaml);
    assert(!/text: "?(e|password)"?$/m.test(yaml), yaml);
    const path = `${dir}/capture.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify(sessionToCapture(await readSession(store, sessionId))),
    );
    const again = await ingestFile(store, path);
    assertEquals(again.sessions.length, 1);
  } finally {
    await cleanup();
  }
});

Deno.test("BlazeSession redacts a secret typed into the focused field without a ref, and a sensitive field it reads", async () => {
  const FOCUSED = "focusSecret77";
  const READ = "5555444433332222";
  let read: ToolResult | undefined;
  const { events, stored, results, store, sessionId, cleanup } = await blaze(
    async ({ call, driver }) => {
      const snap = (await call("snapshot", {})).output;
      assert((await call("tap", { ref: refIn(snap, "Password") })).ok);
      const typed = await call("type", { text: FOCUSED });
      assert(typed.ok, typed.error);
      assertEquals(
        await driver.page.$eval("#password", (el) => (el as HTMLInputElement).value),
        FOCUSED,
      );
      assert((await call("type", { ref: refIn(snap, "Card number"), text: READ })).ok);
      read = await call("read", { ref: refIn(snap, "Card number"), storeAs: "cc" });
    },
  );
  try {
    assert(read?.ok, read?.error);
    assertEquals(read.value, "[redacted]");
    assertEquals(read.output, 'cc = "[redacted]"');
    const typed = events.find((e) => e.type === "ActionPerformed" && e.data.kind === "inputText");
    assert(typed?.type === "ActionPerformed");
    assertEquals(typed.data.text, "[redacted]");
    assertEquals(typed.data.toolParams?.text, "[redacted]");
    const last = events.filter((e) => e.type === "MemorySnapshotted").at(-1);
    assert(last?.type === "MemorySnapshotted");
    assertEquals(last.data.memory, { cc: "[redacted]" });
    const { trail } = await projectSessionTrail(store, sessionId, { mode: "adaptive" });
    stored.push({ where: "the trail", text: stringifyTrail(trail) });
    for (const { where, text } of stored) {
      assertNoSecret(text, FOCUSED, where);
      assertNoSecret(text, READ, where);
    }
    for (const r of results) {
      assertNoSecret(JSON.stringify(r), FOCUSED, `the result ${r.output}`);
      assertNoSecret(JSON.stringify(r), READ, `the result ${r.output}`);
    }
  } finally {
    await cleanup();
  }
});

/**
 * What the stored hierarchies and the agent's snapshots hold of the password field after
 * typing `password`: the field's nodes as stored (value, children) and every line of an
 * `offscreen: true` snapshot about it; plus every stored text and result, for mask characters.
 */
async function passwordTraces(password: string): Promise<{
  fields: string[];
  lines: string[];
  masks: string[];
}> {
  const lines: string[] = [];
  const { events, stored, results, store, cleanup } = await blaze(async ({ call }) => {
    const snap = (await call("snapshot", {})).output;
    const typed = await call("type", { ref: refIn(snap, "Password"), text: password });
    assert(typed.ok, typed.error);
    const all = (await call("snapshot", { offscreen: true })).output.split("\n");
    const at = all.findIndex((l) => l.includes('textbox "Password"'));
    assert(at >= 0, all.join("\n"));
    const indent = all[at]!.search(/\S/);
    lines.push(all[at]!);
    for (const l of all.slice(at + 1)) {
      if (l.search(/\S/) <= indent) break;
      lines.push(l); // the field's children, as the agent sees them
    }
  });
  try {
    const fields: string[] = [];
    // events and exports as stored; hierarchy blobs as UTF-8 below (a screenshot's bytes are
    // no text, and windows-1252 reads 0x95 in them as a bullet)
    const texts = [
      ...stored.filter((s) => !s.where.startsWith("blob ")).map((s) => s.text),
      ...results.map((r) => JSON.stringify(r)),
    ];
    for (const e of events) {
      if (e.type !== "ScreenCaptured") continue;
      const json = new TextDecoder().decode((await store.getBlob(e.data.hierarchy.hash)).bytes);
      texts.push(json);
      const nodes = JSON.parse(json).nodes as { dom?: { type?: string }; children?: number[] }[];
      for (const n of nodes) {
        if (n.dom?.type !== "password") continue;
        const kids = (n.children ?? []).map((i) => nodes[i]);
        fields.push(JSON.stringify({ ...n, children: kids, backendNodeId: 0 }));
      }
    }
    const masks = texts.flatMap((t) => t.match(/[\u2022\u25CF]+|\\u2022|\\u25cf/gi) ?? []);
    return { fields, lines, masks };
  } finally {
    await cleanup();
  }
}

Deno.test("BlazeSession keeps a password's length out of every stored hierarchy, event and blob, and out of its snapshots", async () => {
  const short = await passwordTraces("abc");
  const long = await passwordTraces("hunter22hunter22");
  for (const t of [short, long]) {
    // no mask characters anywhere (Chrome shows one bullet a character under the field)
    assertEquals(t.masks, []);
    assert(t.fields.length > 0);
  }
  // the field looks the same whatever the password's length
  assertEquals(short.fields, long.fields);
  assertEquals(short.lines, long.lines);
  assertEquals(long.lines.length, 1, long.lines.join("\n"));
  assert(long.fields.every((f) => !f.includes('"StaticText"')), long.fields.join("\n"));
});
