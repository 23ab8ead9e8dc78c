import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { dbBytes } from "../../_fixtures/secret_forms.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ancestorsOf, isSensitiveNode, scrubSecrets } from "../../../runners/blaze/actions.ts";
import {
  readSession,
  sessionToCapture,
  sessionToRecording,
} from "../../../runners/record/session_export.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { NewEvent, StoredEvent } from "../../../events/schemas.ts";
import { RecordingV1 } from "../../../engine/formats/recording_v1.ts";
import { projectSessionTrail, projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { stringifyTrail } from "../../../engine/trail/trail.ts";
import { makeNode } from "../../../engine/screens/ui_node.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { buttonRef, refIn } from "../../_fixtures/blaze_refs.ts";
import { toolParams } from "../../../cli/blaze.ts";

const PASSWORD = "Hunter2-s3cret!";
const EMAIL = "ada@example.com";

Deno.test("BlazeSession stores a password typed by the agent nowhere: events, blobs, exports, trail", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const dbPath = `${dir}/cairn.db`;
  const store = SqliteEventStore.open(dbPath);
  const driver = await ChromeDriver.launch();
  let sessionId = "";
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "login.html",
      prompt: "Sign in",
    });
    sessionId = s.id;
    const snap = (await s.call("snapshot", {})).output;
    assert((await s.call("type", { ref: refIn(snap, "Email"), text: EMAIL })).ok);
    const typed = await s.call("type", {
      ref: refIn(snap, "Password"),
      text: PASSWORD,
      step: `Type the password ${PASSWORD}`,
      notes: `the password is ${PASSWORD}`,
    });
    assert(typed.ok, typed.error);
    assert(!typed.output.includes(PASSWORD), typed.output);
    // the page really holds the password: the driver typed it
    assertEquals(
      await driver.page.$eval("#password", (el) => (el as HTMLInputElement).value),
      PASSWORD,
    );
    assert((await s.call("tap", { ref: buttonRef(snap, "Sign in") })).ok);
    await s.call("end", {});
    assertEquals(s.memory, {});

    const events: StoredEvent[] = [];
    for await (const e of store.readStream(s.streamId)) events.push(e);
    for (const e of events) {
      assert(!JSON.stringify(e).includes(PASSWORD), `${e.type} holds the password`);
    }
    const inputs = events.filter((e) =>
      e.type === "ActionPerformed" && e.data.kind === "inputText"
    );
    assertEquals(inputs.length, 2);
    const [email, password] = inputs;
    assert(email?.type === "ActionPerformed" && password?.type === "ActionPerformed");
    assertEquals(email.data.text, EMAIL); // a plain field keeps its value
    assertEquals(password.data.text, "[redacted]");
    assertEquals(password.data.toolParams?.text, "[redacted]");
    assertStringIncludes(String(password.data.toolParams?.step), "[redacted]");
    assertEquals(password.data.toolParams?.notes, "the password is [redacted]");
    for (const e of events) {
      if (e.type !== "ScreenCaptured") continue;
      for (const ref of [e.data.hierarchy, e.data.screenshot]) {
        if (!ref) continue;
        const bytes = (await store.getBlob(ref.hash)).bytes;
        assert(!new TextDecoder("latin1").decode(bytes).includes(PASSWORD), `blob ${ref.hash}`);
      }
    }

    const recording = RecordingV1.parse(sessionToRecording(await readSession(store, sessionId)));
    const recJson = JSON.stringify(recording);
    assert(!recJson.includes(PASSWORD), "recording_v1 holds the password");
    assertStringIncludes(recJson, "[redacted]");
    assert(
      !JSON.stringify(sessionToCapture(await readSession(store, sessionId))).includes(PASSWORD),
    );

    const projection = await projectSessionTrail(store, sessionId, { mode: "adaptive" });
    const yaml = stringifyTrail(projection.trail);
    assertStringIncludes(yaml, "{{password}}");
    assert(!/text: "?\[redacted\]/.test(yaml), `the trail types [redacted] as a literal:\n${yaml}`);
    assert(!yaml.includes(PASSWORD), yaml);
    const mem = projection.trail.config?.memory ?? {};
    assertEquals(mem.password ?? null, null); // a slot with no default
    assert(!Object.values(mem).includes("[redacted]"), yaml);
  } finally {
    store.close();
    await driver.close();
    await server.close();
  }
  try {
    const bytes = await dbBytes(dbPath);
    assert(bytes.length > 0);
    assertStringIncludes(bytes, EMAIL); // the scan does see stored text
    assert(!bytes.includes(PASSWORD), "the SQLite file holds the password");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("isSensitiveNode() flags password fields, data-sensitive subtrees and secret autocomplete", () => {
  const field = (attrs: Record<string, string> = {}, password = false) =>
    makeNode({ className: "textbox", role: "textbox", password, attrs });
  assert(isSensitiveNode(field({}, true)));
  assert(isSensitiveNode(field({ autocomplete: "cc-number" })));
  assert(isSensitiveNode(field({ autocomplete: "section-a current-password" })));
  assert(isSensitiveNode(field({ autocomplete: "new-password" })));
  assert(isSensitiveNode(field({ "data-sensitive": "" })));
  assert(!isSensitiveNode(field({ autocomplete: "username" })));
  assert(!isSensitiveNode(field({ type: "email" })));
  const inner = field();
  const wrapper = makeNode({
    className: "group",
    attrs: { "data-sensitive": "" },
    children: [inner],
  });
  const root = makeNode({ className: "RootWebArea", children: [wrapper] });
  assertEquals(ancestorsOf(root, inner), [root, wrapper]);
  assert(isSensitiveNode(inner, ancestorsOf(root, inner)));
  assert(!isSensitiveNode(inner));
});

Deno.test("scrubSecrets() replaces a secret inside every string of a value", () => {
  const v = { a: "pw=abc123", b: ["abc123", 4], c: { d: "x" } };
  assertEquals(scrubSecrets(v, ["abc123"]), {
    a: "pw=[redacted]",
    b: ["[redacted]", 4],
    c: { d: "x" },
  });
  assertEquals(scrubSecrets(v, []), v);
});

Deno.test("projectTrail() gives each [redacted] sensitive input its own slot with no default", () => {
  // no screens (a capture of another recorder): a tap on each field, then its redacted text
  const field = (name: string, id: string, n: number): NewEvent[] =>
    (["tap", "inputText"] as const).flatMap((kind, k): NewEvent[] => [{
      type: "ActionPerformed",
      data: {
        actionId: `a${n}${k}`,
        kind,
        ...(kind === "inputText" ? { text: "[redacted]" } : {}),
        target: { role: "textbox", name, selectors: { id } },
        source: "human",
      },
    }, { type: "ActionCompleted", data: { actionId: `a${n}${k}`, ok: true, durationMs: 1 } }]);
  const events: NewEvent[] = [
    {
      type: "SessionStarted",
      data: { sessionId: "s1", mode: "agent", platform: "web", prompt: "Pay by card" },
    },
    ...field("Card number", "card", 1),
    ...field("Secret note", "note", 2),
    { type: "SessionEnded", data: { reason: "completed" } },
  ];
  const { trail, yaml } = projectTrail(events, { screens: new Map(), mode: "adaptive" });
  assert(!/text: "?\[redacted\]/.test(yaml), yaml);
  const texts = [...yaml.matchAll(/text: "(\{\{\w+\}\})"/g)].map((m) => m[1]);
  assertEquals(texts.length, 2, yaml);
  assert(texts[0] !== texts[1], `two secrets share one slot:\n${yaml}`);
  const mem = trail.config?.memory ?? {};
  for (const t of texts) assertEquals(mem[t!.slice(2, -2)] ?? null, null);
});

Deno.test("BlazeSession stores a memory value marked secret, or equal to a typed secret, as [redacted] and other memory as set", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const dbPath = `${dir}/cairn.db`;
  const store = SqliteEventStore.open(dbPath);
  const driver = await ChromeDriver.launch();
  const PIN = "pin-7351-kept-secret";
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "login.html",
      prompt: "Sign in",
      screenshots: false,
    });
    // `cairn blaze memory set pin=… secret` is this call
    const params = toolParams("memory", ["set", `pin=${PIN}`, "secret"]);
    assertEquals(params, { op: "set", name: "pin", value: PIN, secret: true });
    const set = await s.call("memory", params);
    assert(set.ok, set.error);
    assertEquals(set.output, 'pin = "[redacted]"');
    // the agent reads its own secret back (it set it); the log keeps only [redacted]
    assertEquals((await s.call("memory", { op: "get", name: "pin" })).value, PIN);
    const snap = (await s.call("snapshot", {})).output;
    assert((await s.call("type", { ref: refIn(snap, "Password"), text: PASSWORD })).ok);
    // a value equal to a secret typed into a sensitive field is that secret, marked or not
    assert((await s.call("memory", { op: "set", name: "pw", value: PASSWORD })).ok);
    assert((await s.call("memory", { op: "set", name: "note", value: "two coffees" })).ok);
    await s.call("end", {});
    assertEquals(s.memory, { pin: PIN, pw: PASSWORD, note: "two coffees" });

    const events: StoredEvent[] = [];
    for await (const e of store.readStream(s.streamId)) events.push(e);
    for (const e of events) {
      const json = JSON.stringify(e);
      assert(!json.includes(PIN) && !json.includes(PASSWORD), `${e.type} holds a secret: ${json}`);
    }
    const sets = events.flatMap((e) =>
      e.type === "ActionPerformed" && e.data.kind === "memorySet"
        ? [[e.data.storeAs, e.data.value, e.data.toolParams?.value]]
        : []
    );
    assertEquals(sets, [
      ["pin", "[redacted]", "[redacted]"],
      ["pw", "[redacted]", "[redacted]"],
      ["note", "two coffees", "two coffees"],
    ]);
    const last = events.filter((e) => e.type === "MemorySnapshotted").at(-1);
    assert(last?.type === "MemorySnapshotted");
    assertEquals(last.data.memory, { pin: "[redacted]", pw: "[redacted]", note: "two coffees" });
    assertEquals(last.data.writtenBy, { pin: "memorySet", pw: "memorySet", note: "memorySet" });
    const recording = JSON.stringify(sessionToRecording(await readSession(store, s.id)));
    assert(!recording.includes(PIN) && !recording.includes(PASSWORD), recording);

    // the trail asks the run for each secret, as for a password field: {{key}}, key: null
    for (const heuristics of ["v1", "v2"]) {
      const { trail, yaml } = await projectSessionTrail(store, s.id, { heuristics });
      assert(!yaml.includes("[redacted]"), `${heuristics} writes [redacted] literally:\n${yaml}`);
      const sets = trail.trail.flatMap((t) => t.recording ?? []).filter((a) =>
        a.kind === "memorySet"
      );
      assertEquals(sets.map((a) => [a.storeAs, a.value]), [
        ["pin", "{{pin}}"],
        ["pw", "{{pw}}"],
        ["note", "two coffees"],
      ]);
      const typed = trail.trail.flatMap((t) => t.recording ?? []).find((a) =>
        a.kind === "inputText"
      );
      // a redacted text is some secret: it is matched with no redacted memory key
      assertEquals(typed?.text, "{{password}}");
      assertEquals(trail.config.memory, { password: null, pin: null, pw: null });
    }
  } finally {
    store.close();
    await driver.close();
    await server.close();
  }
  try {
    const bytes = await dbBytes(dbPath);
    assertStringIncludes(bytes, "two coffees"); // the scan does see stored memory
    assert(!bytes.includes(PIN), "the SQLite file holds the memory value marked secret");
    assert(!bytes.includes(PASSWORD), "the SQLite file holds the password");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("BlazeSession redacts fields marked sensitive on the web: autocomplete cc-*, data-sensitive", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  const CARD = "4111111111111111";
  const NOTE = "my-private-note-42";
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "login.html",
      prompt: "x",
    });
    const snap = (await s.call("snapshot", {})).output;
    assert((await s.call("type", { ref: refIn(snap, "Card number"), text: CARD })).ok);
    assert((await s.call("type", { ref: refIn(snap, "Secret note"), text: NOTE })).ok);
    await s.call("end", {});
    const typed: string[] = [];
    for await (const e of store.readStream(s.streamId)) {
      const json = JSON.stringify(e);
      assert(!json.includes(CARD) && !json.includes(NOTE), `${e.type} holds a sensitive value`);
      if (e.type === "ActionPerformed" && e.data.kind === "inputText") {
        typed.push(e.data.text ?? "");
      }
    }
    assertEquals(typed, ["[redacted]", "[redacted]"]);
  } finally {
    store.close();
    await driver.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("scrubSecrets() hides a short secret only as a whole string or url value, never inside words", () => {
  const v = {
    step: "Press the sign in button",
    url: "http://h/w.html?email=a%40b.c&password=e#x=e",
    text: "e",
    schema: "cairn.chrome/v1",
  };
  assertEquals(scrubSecrets(v, ["e"]), {
    step: "Press the sign in button",
    url: "http://h/w.html?email=a%40b.c&password=[redacted]#x=[redacted]",
    text: "[redacted]",
    schema: "cairn.chrome/v1",
  });
  // a url parameter's name is structure, even when it is the secret
  assertEquals(
    scrubSecrets("/w?password=password&e=1", ["password"]),
    "/w?password=[redacted]&e=1",
  );
  // form encoding: space is +, !'()*~ percent-encoded
  assertEquals(
    scrubSecrets("/w?p=p%40ss+w0rd%21%27%28%29%2A%7E", ["p@ss w0rd!'()*~"]),
    "/w?p=[redacted]",
  );
});
