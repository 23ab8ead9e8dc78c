/**
 * A secret given to one run is kept out of every later run in the same browser (`cairn serve`
 * reuses a browser across HTTP runs): a real `cairn serve` on 127.0.0.1 validates, in a real
 * Chromium, a capture whose Unlock button puts the pin typed into the page's url
 * (`lock.html?code=<pin>`). A validation given the pin as `memory` leaves the browser there; a
 * later validation given none, whose page cannot be opened, would report the page it was on.
 * With `CAIRN_BROWSER_WS` (a user's Chromium with a tab of their own) each run plays in a fresh tab
 * Cairn opens, the user's tab untouched, and secrets still cross runs through the browser's
 * storage (`memo.html` shows the last pin Unlock stored) and through a playback given `tab`: a
 * validation's secret is kept out of a later playback's events and a playback's out of later
 * playbacks' and validations'. Checked in every GET answer, on the SSE stream and in the SQLite
 * file's bytes.
 * Last, `runValidation` alone: its own stream (the report's message) is scrubbed as its replays'.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { startServe } from "../_fixtures/cli_run.ts";
import { assertNoSecret, dbBytes } from "../_fixtures/secret_forms.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import { refIn } from "../_fixtures/blaze_refs.ts";
import { withDeadline } from "../../drivers/with_deadline.ts";
import { BlazeSession } from "../../runners/blaze/session.ts";
import { runValidation } from "../../runners/validation/runner.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { startUserChromium } from "../_fixtures/user_chromium.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { waitUntil } from "../_fixtures/wait.ts";

/** Typed while blazing the capture (the recorder redacts it). */
const BLAZED = "Blazed-8812-quartz";
/** Given to the first validation. */
const PIN = "Pin-7730-basalt";
/** Given to a playback in the shared browser. */
const PIN2 = "Pin-5514-gneiss";

/**
 * Unlock writes the pin typed into the url, as a magic-link page would keep it, and into the
 * origin's local storage (which every tab of the browser shares).
 */
const PAGE = `<!doctype html><html><body>
<input aria-label="PIN" id="pin" type="password">
<button onclick="history.replaceState(null, '', '?code=' +
  encodeURIComponent(document.getElementById('pin').value));
  localStorage.setItem('code', document.getElementById('pin').value);
  document.getElementById('state').textContent = 'Unlocked'">Unlock</button>
<p id="state">Locked</p>
</body></html>`;

/** Shows the pin Unlock last stored in this origin (any tab of the browser). */
const MEMO = `<!doctype html><html><body><p id="memo"></p>
<script>document.getElementById('memo').textContent =
  'Last code: ' + (localStorage.getItem('code') ?? 'none')</script></body></html>`;

/** The url of a port nothing listens on (bound, then closed). */
function deadUrl(): string {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return `http://127.0.0.1:${port}/lock.html`;
}

/** Blazes lock.html: types a pin into the password field, taps Unlock. */
async function blazeUnlock(db: string, url: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: "Unlock", settleMs: 100 });
    const snap = (await s.call("snapshot", {})).output;
    const typed = await s.call("type", {
      ref: refIn(snap, "PIN"),
      text: BLAZED,
      step: "Type the pin",
    });
    assert(typed.ok, typed.error);
    const line = snap.split("\n").find((l) => l.includes("button") && l.includes('"Unlock"'));
    const tap = await s.call("tap", { ref: refIn(line ?? "", "Unlock"), step: "Unlock" });
    assert(tap.ok, tap.error);
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

/** Reads an SSE response's text in the background until `stop()` (or 120 s). */
function collect(res: Response): { text: () => string; stop: () => Promise<void> } {
  let text = "";
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), 120_000);
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

/** A `cairn serve` on a fresh database holding one blazed capture of lock.html. */
interface Fixture {
  dir: string;
  db: string;
  lock: string;
  sessionId: string;
  /** Every answer read (path, text), to scan. */
  answers: [string, string][];
  get(path: string): Promise<string>;
  post(path: string, body: unknown): Promise<[number, string]>;
  /** Starts a validation and waits for its report. */
  validate(body: unknown): Promise<Record<string, unknown>>;
  /** Waits for a run's report (`/v1/playbacks/<id>` or `/v1/validations/<id>`). */
  poll(path: string): Promise<Record<string, unknown>>;
  /** Starts a playback and waits for its report. */
  play(body: unknown): Promise<Record<string, unknown>>;
  sse: ReturnType<typeof collect>;
}

/**
 * Runs `body` against a fresh server, then checks that no answer, SSE message, stored event or
 * byte of the SQLite file holds one of `secrets`.
 */
async function withServe(
  env: Record<string, string>,
  secrets: string[],
  body: (f: Fixture) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-browser-secrets-" });
  try {
    await serveIn(dir, env, secrets, body);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** {@linkcode withServe} in `dir` (removed by the caller, pass or fail). */
async function serveIn(
  dir: string,
  env: Record<string, string>,
  secrets: string[],
  body: (f: Fixture) => Promise<void>,
): Promise<void> {
  const pages = `${dir}/pages`;
  await Deno.mkdir(pages);
  await Deno.writeTextFile(`${pages}/lock.html`, PAGE);
  await Deno.writeTextFile(`${pages}/memo.html`, MEMO);
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const web = serveFolder(pages);
  const db = `${dir}/cairn.db`;
  const lock = `${web.url}lock.html`;
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  let sse: ReturnType<typeof collect> | undefined;
  try {
    const sessionId = await blazeUnlock(db, lock);
    serve = await startServe(["--db", db], { TMPDIR: tmp, ...env }, dir);
    const api = serve.url;
    const stream = await fetch(api + "/v1/events", { headers: { accept: "text/event-stream" } });
    assertEquals(stream.status, 200);
    sse = collect(stream);
    const answers: [string, string][] = [];
    const get = async (path: string): Promise<string> => {
      const res = await fetch(api + path, { headers: { accept: "application/json" } });
      const text = await res.text();
      assertEquals(res.status, 200, `${path}: ${text}`);
      answers.push([path, text]);
      return text;
    };
    const post = async (path: string, b: unknown): Promise<[number, string]> => {
      const res = await fetch(api + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(b),
      });
      const text = await res.text();
      answers.push([`POST ${path}`, text]);
      return [res.status, text];
    };
    const poll = async (path: string) => {
      for (let i = 0; i < 600; i++) {
        const report = JSON.parse(await get(path));
        if (report.status !== "running") return report;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${path} did not end within 60 s`);
    };
    const validate = async (b: unknown) => {
      const [status, text] = await post(`/v1/sessions/${sessionId}/validations`, b);
      assertEquals(status, 202, text);
      return await poll(`/v1/validations/${JSON.parse(text).validationId}`);
    };
    const play = async (b: unknown) => {
      const [status, text] = await post("/v1/playbacks", b);
      assertEquals(status, 202, text);
      return await poll(`/v1/playbacks/${JSON.parse(text).playbackId}`);
    };
    await body({ dir, db, lock, sessionId, answers, get, post, poll, validate, play, sse });

    // every stored event, as the API gives it, and the SSE stream's copy of it
    const all = await get("/v1/events?limit=10000");
    for (const [path, text] of answers) {
      for (const s of secrets) assertNoSecret(text, s, path);
    }
    const count = JSON.parse(all).events.length;
    // the stream carries every stored event before it is read for secrets (bounded)
    await waitUntil(
      "the SSE stream to carry every event",
      () => sse!.text().split("\nid:").length > count,
      { timeoutMs: 30_000 },
    );
    await sse.stop();
    for (const s of secrets) assertNoSecret(sse.text(), s, "the SSE stream");
  } finally {
    await sse?.stop();
    if (serve) {
      serve.child.kill("SIGTERM");
      await withDeadline(serve.child.status, 20_000, () => new Error("serve did not exit"));
      await serve.stderr;
    }
    await web.close();
  }
  const bytes = await dbBytes(db);
  // the scan sees what the runs stored: the url Unlock wrote, its pin taken out
  assert(bytes.includes("lock.html?code=[redacted]"), "no scrubbed url in the SQLite file");
  for (const s of secrets) assertNoSecret(bytes, s, "the SQLite file");
}

/** The page url of the opening navigate (plan action 0) of a validation's `n`th replay. */
async function openingUrl(f: Fixture, report: Record<string, unknown>, n = 1): Promise<string> {
  const id = `${report.validationId}-${n}`;
  const events = JSON.parse(await f.get(`/v1/streams/playback-${id}/events`)).events as {
    type: string;
    data: { index: number; pageUrl?: string; status: string };
  }[];
  const first = events.find((e) => e.type === "PlaybackActionCompleted" && e.data.index === 0);
  assert(first, `no opening navigate in playback-${id}`);
  return first.data.pageUrl ?? "";
}

Deno.test("validations in one browser: a pin given to one is in no event, report or SSE message of a later validation given none, whose page could not be opened", async () => {
  await withServe({}, [PIN, BLAZED], async (f) => {
    const given = await f.validate({ url: f.lock, policy: "ci", memory: { password: PIN } });
    assertEquals(given.status, "stable", JSON.stringify(given.steps));
    // the pin was typed and Unlock put it in the url: stored redacted
    const firstEvents = await f.get(`/v1/streams/playback-${given.validationId}-1/events`);
    assertStringIncludes(firstEvents, "lock.html?code=[redacted]");

    // too slow: "the browser still shows <the page it was on>", in the report's message
    const slowUrl = `${f.lock.replace("lock.html", "slow")}?ms=8000&to=/lock.html`;
    const slow = await f.validate({ url: slowUrl, policy: "ci" });
    assertEquals(slow.status, "failed", JSON.stringify(slow));
    // it starts on about:blank: nothing of the page the last validation left is there
    assertStringIncludes(
      String(slow.message),
      "did not load within 5 s; the browser still shows about:blank",
    );

    // the server is down: the opening navigate fails on the page the last validation left
    const again = await f.validate({ url: f.lock, policy: "ci", memory: { password: PIN } });
    assertEquals(again.status, "stable", JSON.stringify(again.steps));
    const down = await f.validate({ url: deadUrl(), policy: "ci" });
    assertEquals(down.status, "failed", JSON.stringify(down));
    assertStringIncludes(String(down.message), "The page could not be opened");
    const left = await openingUrl(f, down);
    assertNoSecret(left, PIN, "the opening navigate's pageUrl");
  });
});

/** A trail with the one step `yaml` (recording lines indented under it). */
function trailOf(recording: string): string {
  return `config:
  platform: web
  memory:
    pin: null
trail:
  - step: The step
    recording:
${recording}`;
}

/** A playback's per-action results. */
type Results = { status: string; pageUrl?: string; error?: string }[];

Deno.test("CAIRN_BROWSER_WS: each run plays in a fresh tab and the user's tab is untouched; a validation's pin is in no later playback's events (through the browser's storage) and a playback's in no later run's (a tab playback on the tab holding it)", async () => {
  const user = await startUserChromium("about:blank");
  const mine = await user.connect();
  try {
    const env = { CAIRN_BROWSER_WS: user.ws };
    await withServe(env, [PIN, PIN2, BLAZED], async (f) => {
      // the user's own tab, on a page of theirs, and how wide its window is
      const tab = (await mine.pages())[0]!;
      const userUrl = `${f.lock}?user=1`;
      await tab.goto(userUrl, { waitUntil: "load" });
      const userWidth = await tab.evaluate(() => innerWidth);
      const untouched = async (when: string) => {
        assertEquals(tab.url(), userUrl, `the user's tab ${when}`);
        assertEquals(await tab.$eval("#state", (e) => e.textContent), "Locked", when);
        assertEquals(await tab.evaluate(() => innerWidth), userWidth, when);
        assertEquals(await tab.evaluate(() => history.length), 2, when); // about:blank, userUrl
      };

      // a second start while a playback runs (its click 4 s in) is a 409 that leaves it alone
      const [first, firstText] = await f.post("/v1/playbacks", {
        actions: [
          { action: "navigate", url: f.lock, timestamp_ms: 0 },
          { action: "click", selectors: { text: "Unlock" }, timestamp_ms: 4_000 },
        ],
        timing: "recorded",
      });
      assertEquals(first, 202, firstText);
      const firstPath = `/v1/playbacks/${JSON.parse(firstText).playbackId}`;
      assertEquals(JSON.parse(await f.get(firstPath)).status, "running");
      const [busy, busyText] = await f.post("/v1/playbacks", {
        actions: [{ action: "navigate", url: f.lock, timestamp_ms: 0 }],
      });
      assertEquals(busy, 409, busyText);
      assertStringIncludes(busyText, "Already running");
      // the 409 came while it ran: it still runs, and ends with both its actions played
      assertEquals(JSON.parse(await f.get(firstPath)).status, "running");
      const ran = await f.poll(firstPath);
      assertEquals(ran.status, "completed", JSON.stringify(ran));
      const ranResults = ran.results as Results;
      assertEquals(ranResults.map((r) => r.status), ["ok", "ok"], JSON.stringify(ran));
      await untouched("after a playback");

      // a validation given the pin: Unlock stores it in the url of its tab and in local storage
      const given = await f.validate({ url: f.lock, policy: "ci", memory: { password: PIN } });
      assertEquals(given.status, "stable", JSON.stringify(given.steps));
      await untouched("after a validation");
      // its tab is Cairn's, not the user's: the browser holds it open at the pin's url
      const urls = (await mine.pages()).map((p) => p.url());
      assert(urls.includes(`${f.lock}?code=${PIN}`), urls.join(", "));

      // a playback in a fresh tab of that browser: memo.html shows the pin from local storage
      const memo = await f.play({
        trail: trailOf(
          `      - navigate:\n          url: "${f.lock.replace("lock.html", "memo.html")}"\n` +
            `      - assertText:\n          selector: { id: memo }\n          equals: "Last code: none"\n`,
        ),
        timeoutMs: 2_000,
      });
      const memoResults = memo.results as Results;
      assertEquals(memoResults[1]!.status, "failed", JSON.stringify(memo));
      assertStringIncludes(memoResults[1]!.error ?? "", "Last code: [redacted]");

      // tab ids are Cairn's own tabs (the playbacks' tab-1 and the tabs its pages opened), never
      // the user's: the browser has three tabs, the playbacks' driver one
      const [noTab, noTabText] = await f.post("/v1/playbacks", {
        actions: [{ action: "navigate", url: f.lock, timestamp_ms: 0 }],
        tab: "tab-2",
      });
      assertEquals(noTab, 400, noTabText);
      assertStringIncludes(noTabText, "no such open tab");

      // a playback given a pin, then one given tab-1 (the tab it left, at ?code=<pin>) and none
      const typed = await f.play({
        actions: [
          { action: "navigate", url: f.lock },
          { action: "type", selector: "#pin", text: "{{pin}}" },
          { action: "click", selectors: { text: "Unlock" } },
        ],
        memory: { pin: PIN2 },
      });
      assertEquals(typed.status, "completed", JSON.stringify(typed));
      const onTab = await f.play({
        trail: trailOf(
          `      - assertText:\n          selector: { id: state }\n          equals: Locked\n`,
        ),
        tab: "tab-1",
        timeoutMs: 2_000,
      });
      const onTabResults = onTab.results as Results;
      assertEquals(onTabResults[0]!.status, "failed", JSON.stringify(onTab));
      assertStringIncludes(onTabResults[0]!.pageUrl ?? "", "lock.html?code=[redacted]");

      // a validation given none, whose page cannot be opened: a fresh tab, nothing of the pin
      const down = await f.validate({ url: deadUrl(), policy: "ci" });
      assertEquals(down.status, "failed", JSON.stringify(down));
      assertNoSecret(await openingUrl(f, down), PIN2, "the opening navigate's pageUrl");
      // and one on memo.html, which shows the playback's pin from local storage
      const onMemo = await f.validate({
        url: f.lock.replace("lock.html", "memo.html"),
        policy: "ci",
      });
      assert(onMemo.status !== "running", JSON.stringify(onMemo));
      // each run's tab closed as the next one opened: the user's, the playbacks' and the
      // validations' tabs are all the browser has, none at the first validation's pin
      const now = (await mine.pages()).map((p) => p.url());
      assertEquals(now.length, 3, now.join(", "));
      assert(!now.some((u) => u.includes(PIN)), now.join(", "));
      await untouched("after the last run");
    });
    // the server closed its tabs as it exited: the user's is the browser's one tab, as it was
    const left = await mine.pages();
    assertEquals(left.length, 1, left.map((p) => p.url()).join(", "));
    assertStringIncludes(left[0]!.url(), "lock.html?user=1");
  } finally {
    await mine.disconnect().catch(() => {});
    await user.close();
  }
});

Deno.test("runValidation secrets: a validation that starts on a page holding a secret given to an earlier run keeps it out of its own stream (the report's 'the browser still shows <url>')", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validation-secrets-" });
  const pages = `${dir}/pages`;
  await Deno.mkdir(pages);
  await Deno.writeTextFile(`${pages}/lock.html`, PAGE);
  const web = serveFolder(pages);
  const db = `${dir}/cairn.db`;
  const lock = `${web.url}lock.html`;
  try {
    const sessionId = await blazeUnlock(db, lock);
    const store = SqliteEventStore.open(db);
    const driver = await ChromeDriver.launch();
    try {
      // where an earlier run given the pin left the browser (no about:blank here: the loop's own)
      await driver.navigate(`${lock}?code=${encodeURIComponent(PIN)}`);
      const state = await runValidation(driver, store, sessionId, {
        url: `${web.url}slow?ms=8000&to=/lock.html`,
        policy: "ci",
        secrets: [PIN],
      });
      assertEquals(state.status, "failed");
      assertStringIncludes(
        state.message ?? "",
        "the browser still shows http://127.0.0.1:",
      );
      assertStringIncludes(state.message ?? "", "/lock.html?code=[redacted]");
      for await (const e of store.readStream(`validation-${state.validationId}`)) {
        assertNoSecret(JSON.stringify(e), PIN, `stored ${e.type}`);
      }
    } finally {
      await driver.close();
      store.close();
    }
    const bytes = await dbBytes(db);
    assert(bytes.includes("code=[redacted]"), "no scrubbed url in the SQLite file");
    assertNoSecret(bytes, PIN, "the SQLite file");
  } finally {
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});
