/**
 * `POST /v1/playbacks` with `memory` (the HTTP `replay --memory`): a real `cairn serve` on
 * 127.0.0.1 plays, in a real Chromium, a trail that keeps its pin as `pin: null`, opens a link
 * carrying `{{pin}}` and types it. With the value given the playback unlocks the page; the value is
 * in no stored event or blob (read from the SQLite file), in no GET answer and not on the SSE
 * stream. Without it the step fails `redacted_value`. A bad key is a 400 naming `body.memory.<key>`.
 */
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { startServe } from "../../_fixtures/cli_run.ts";
import { assertNoSecret, dbBytes } from "../../_fixtures/secret_forms.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { withDeadline } from "../../../drivers/with_deadline.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { PlaybackReportAnswer as PlaybackReport } from "../../../api/playbacks.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

const PIN = "Pin-7730-basalt";

/** Unlocks only with the right pin: the assertion after it proves what was typed. */
const PAGE = `<!doctype html><html><body>
<input aria-label="PIN" id="pin" type="password">
<button onclick="document.getElementById('state').textContent =
  document.getElementById('pin').value === '${PIN}' ? 'Unlocked' : 'Wrong pin'">Unlock</button>
<p id="state">Locked</p>
</body></html>`;

/** Opens the page by a link carrying the pin (a magic link), then types it. */
function trail(url: string): string {
  return `config:
  platform: web
  memory:
    pin: null
trail:
  - step: Open the link
    recording:
      - navigate:
          url: "${url}?code={{pin}}"
  - step: Unlock with the pin
    recording:
      - inputText:
          selector: { ariaLabel: PIN }
          text: "{{pin}}"
      - tap:
          selector: { text: Unlock }
      - assertText:
          selector: { id: state }
          equals: Unlocked
`;
}

/** Reads an SSE response's text in the background until `stop()` (or 60 s). */
function collect(res: Response): { text: () => string; stop: () => Promise<void> } {
  let text = "";
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), 60_000);
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
    } catch { /* cancelled */ }
  })();
  return {
    text: () => text,
    stop: async () => {
      clearTimeout(deadline);
      await reader.cancel().catch(() => {});
      await done;
    },
  };
}

Deno.test("POST /v1/playbacks memory: a null secret plays from the value given, which no stored event, blob, GET answer or SSE message holds; without it redacted_value; a bad key is a 400 naming body.memory.<key>", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-playback-memory-http-" });
  const pages = `${dir}/pages`;
  await Deno.mkdir(pages);
  await Deno.writeTextFile(`${pages}/lock.html`, PAGE);
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const web = serveFolder(pages);
  const db = `${dir}/cairn.db`;
  // run in `dir`: the server's screenshots go to dir/.cairn/screenshots
  const serve = await startServe(["--db", db], { TMPDIR: tmp }, dir);
  const api = serve.url;
  let sse: ReturnType<typeof collect> | undefined;
  const answers: [string, string][] = [];
  const get = async (path: string): Promise<string> => {
    const res = await fetch(api + path, { headers: { accept: "application/json" } });
    const text = await res.text();
    assertEquals(res.status, 200, `${path}: ${text}`);
    answers.push([path, text]);
    return text;
  };
  const post = async (body: unknown): Promise<[number, string]> => {
    const res = await fetch(api + "/v1/playbacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    answers.push(["POST /v1/playbacks", text]);
    return [res.status, text];
  };
  const play = async (body: unknown): Promise<PlaybackReport> => {
    const [status, text] = await post(body);
    assertEquals(status, 202, text);
    const id = JSON.parse(text).playbackId as string;
    for (let i = 0; i < 300; i++) {
      const report = JSON.parse(await get(`/v1/playbacks/${id}`)) as PlaybackReport;
      if (report.status !== "running") return report;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`playback ${id} did not end within 30 s`);
  };
  try {
    // the whole log as it is appended, from the first event
    const stream = await fetch(api + "/v1/events", { headers: { accept: "text/event-stream" } });
    assertEquals(stream.status, 200);
    sse = collect(stream);
    const yaml = trail(`${web.url}lock.html`);

    // /openapi.json describes the body's memory: string values, keys as --memory takes them
    const doc = await (await fetch(api + "/openapi.json")).json();
    const memory = doc.paths["/v1/playbacks"].post.requestBody.content["application/json"].schema
      .properties.memory;
    assertEquals(memory.additionalProperties, { type: "string" });
    assertEquals(memory.propertyNames.pattern, "^[^=]+$");

    // bad keys: refused before a browser starts, each named; the value is not echoed
    const [malformed, badText] = await post({ trail: yaml, memory: { "pi=n": PIN, "": PIN } });
    assertEquals(malformed, 400, badText);
    const bad = JSON.parse(badText).error;
    assertEquals(bad.code, "invalid_request");
    assertEquals(bad.issues.map((i: { path: string }) => i.path), [
      "body.memory.pi=n",
      "body.memory.",
    ]);
    const [unknown, unknownText] = await post({ trail: yaml, memory: { pim: PIN } });
    assertEquals(unknown, 400, unknownText);
    assertEquals(JSON.parse(unknownText).error.issues, [
      { path: "body.memory.pim", message: "not a memory key of the trail (keys: pin)" },
    ]);
    const [notText, notTextBody] = await post({ trail: yaml, memory: { pin: 4321 } });
    assertEquals(notText, 400, notTextBody);
    assertEquals(JSON.parse(notTextBody).error.issues[0].path, "body.memory.pin");

    // (a) with the value: the link opens, the pin is typed, the page unlocks
    const given = await play({ trail: yaml, memory: { pin: PIN } });
    assertEquals(given.status, "completed", JSON.stringify(given.results));
    assertEquals(given.results.map((r) => [r.action, r.status]), [
      ["navigate", "ok"],
      ["type", "ok"],
      ["click", "ok"],
      ["assert_text", "ok"],
    ]);
    assertEquals(given.results[3]!.value, "Unlocked");
    // the page the link opened is reported with the pin taken out
    assertStringIncludes(given.results[0]!.pageUrl!, "lock.html?code=[redacted]");

    // (c) without it: the secret is named as such, not as a page error
    const missing = await play({ trail: yaml, onError: "stop" });
    assertEquals(missing.results[0]!.status, "failed");
    assertEquals(missing.results[0]!.errorCode, "redacted_value");
    assertStringIncludes(missing.results[0]!.error!, "{{pin}} is a secret the trail does not hold");

    // (b) every GET answer about them
    await get("/v1/playbacks");
    await get("/v1/selectors/fragile");
    for (const r of [given, missing]) {
      await get(`/v1/streams/playback-${r.playbackId}/events`);
      for (const b of (r as unknown as { screenshotBlobs: { url: string }[] }).screenshotBlobs) {
        const res = await fetch(api + b.url);
        assertEquals(res.status, 200);
        const bytes = new TextDecoder("latin1").decode(await res.arrayBuffer());
        answers.push([b.url, bytes]);
      }
    }
    const page = JSON.parse(await get("/v1/events?limit=10000")) as {
      events: { type: string }[];
    };
    assertEquals(page.events.filter((e) => e.type === "PlaybackCompleted").length, 2);
    // the second playback, given no memory, starts on about:blank, not on the page the first
    // left (lock.html?code=<pin>); the first's value would be scrubbed from it anyway
    for (const [path, text] of answers) assertNoSecret(text, PIN, path);
    // the scan sees what the playbacks stored: the scrubbed url and the unlocked text
    const all = answers.map(([, t]) => t).join("\n");
    assertStringIncludes(all, "code=[redacted]");
    assertStringIncludes(all, "Unlocked");

    // the SSE stream carried both playbacks' events, the pin in none
    await waitUntil(
      "both PlaybackCompleted events on the SSE stream",
      () => sse!.text().split("PlaybackCompleted").length >= 3,
      { timeoutMs: 30_000 },
    ).catch(() => {});
    await sse.stop();
    const messages = sse.text();
    assertEquals(messages.split('"type":"PlaybackCompleted"').length, 3, messages.slice(-500));
    assertStringIncludes(messages, "code=[redacted]");
    assertNoSecret(messages, PIN, "the SSE stream");
  } finally {
    await sse?.stop();
    serve.child.kill("SIGTERM");
    await withDeadline(serve.child.status, 20_000, () => new Error("serve did not exit"));
    await serve.stderr;
    await web.close();
  }
  try {
    // (b) the SQLite file: every event's data and meta, and every blob's bytes
    const sql = new DatabaseSync(db, { readOnly: true });
    let events = 0;
    let hashes: string[];
    try {
      for (const row of sql.prepare("SELECT type, data, meta FROM events").all()) {
        events++;
        assertNoSecret(`${row.data}${row.meta}`, PIN, `stored ${row.type}`);
      }
      hashes = sql.prepare("SELECT hash FROM blobs").all().map((r) => String(r.hash));
    } finally {
      sql.close();
    }
    assert(events > 10, `only ${events} events stored`);
    const store = SqliteEventStore.open(db);
    try {
      for (const hash of hashes) {
        const blob = await store.getBlob(hash);
        assertNoSecret(new TextDecoder("latin1").decode(blob.bytes), PIN, `blob ${hash}`);
      }
    } finally {
      store.close();
    }
    assert(hashes.length > 0, "the playbacks stored screenshots");
    assertNoSecret(await dbBytes(db), PIN, "the SQLite file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
