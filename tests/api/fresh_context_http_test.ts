/**
 * Each HTTP run of `cairn serve` in a browser Cairn launched starts in a fresh browser context
 * (as Playwright Test gives each test), and in a user's `CAIRN_BROWSER_WS` browser in that
 * browser's own context: a real `cairn serve` on 127.0.0.1 plays, in a real Chromium, `ls.html`,
 * a page that counts its loads in `localStorage` and shows `visits N`. Two playbacks and two
 * validations of one blazed capture (each of several replays) all see `visits 1`; a playback given
 * `tab` plays on in the context the playback before it left (`visits 2` on reload); in a user's
 * browser the count goes on across runs and the user's own tab sees it too.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { startServe } from "../_fixtures/cli_run.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import { refIn } from "../_fixtures/blaze_refs.ts";
import { withDeadline } from "../../drivers/with_deadline.ts";
import { BlazeSession } from "../../runners/blaze/session.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { startUserChromium } from "../_fixtures/user_chromium.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";

/** Counts its loads in the origin's local storage (and session storage, and a cookie). */
const LS = `<!doctype html><html><body><p id="v"></p><p id="s"></p><p id="c"></p><button></button>
<script>
localStorage.n = String(Number(localStorage.n ?? 0) + 1);
sessionStorage.n = String(Number(sessionStorage.n ?? 0) + 1);
const c = Number((document.cookie.match(/(?:^|; )n=(\\d+)/) ?? [])[1] ?? 0) + 1;
document.cookie = "n=" + c + "; path=/";
document.getElementById('v').textContent = 'visits ' + localStorage.n;
document.getElementById('s').textContent = 'session ' + sessionStorage.n;
document.getElementById('c').textContent = 'cookie ' + c;
// a button whose label each load draws anew: its step never converges, so an authoring
// validation replays as often as it may
document.querySelector('button').textContent = 'Go ' +
  Array.from({ length: 8 }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(Math.random() * 26)]).join('');
</script></body></html>`;

/** A trail opening ls.html (in a fresh tab) and asserting its count. */
function trail(url: string, visits: number, navigate = true): string {
  return `config:
  platform: web
trail:
  - step: Count
    recording:
${navigate ? `      - navigate:\n          url: "${url}"\n` : ""}      - assertText:
          selector: { id: v }
          equals: "visits ${visits}"
      - assertText:
          selector: { id: c }
          equals: "cookie ${visits}"
`;
}

/** Blazes ls.html in a fresh browser: asserts `visits 1`. */
async function blazeCount(db: string, url: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: "Count", settleMs: 100 });
    const snap = (await s.call("snapshot", {})).output;
    const line = snap.split("\n").find((l) => l.includes("visits 1"));
    assert(line, snap);
    const r = await s.call("assert", {
      ref: refIn(line, "visits 1"),
      text: "visits 1",
      step: "Count",
    });
    assert(r.ok, r.error);
    const go = snap.split("\n").find((l) => l.includes("button"));
    assert(go, snap);
    const label = go.match(/"(Go [a-z]+)"/)?.[1] ?? "Go";
    const tap = await s.call("tap", { ref: refIn(go, label), step: "Go" });
    assert(tap.ok, tap.error);
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

interface Fixture {
  ls: string;
  play(body: unknown): Promise<Record<string, unknown>>;
  validate(body: unknown): Promise<Record<string, unknown>>;
}

/** A `cairn serve` (`env`) on a fresh database holding one blazed capture of ls.html. */
async function withServe(
  env: Record<string, string>,
  body: (f: Fixture) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-fresh-context-" });
  await Deno.mkdir(`${dir}/pages`);
  await Deno.writeTextFile(`${dir}/pages/ls.html`, LS);
  await Deno.mkdir(`${dir}/tmp`);
  const web = serveFolder(`${dir}/pages`);
  const db = `${dir}/cairn.db`;
  const ls = `${web.url}ls.html`;
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    const sessionId = await blazeCount(db, ls);
    serve = await startServe(["--db", db], { TMPDIR: `${dir}/tmp`, ...env }, dir);
    const api = serve.url;
    const post = async (path: string, b: unknown): Promise<string> => {
      const res = await fetch(api + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(b),
      });
      const text = await res.text();
      assertEquals(res.status, 202, `${path}: ${text}`);
      return text;
    };
    const poll = async (path: string) => {
      for (let i = 0; i < 600; i++) {
        const res = await fetch(api + path, { headers: { accept: "application/json" } });
        const report = await res.json();
        if (report.status !== "running") return report;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${path} did not end within 60 s`);
    };
    await body({
      ls,
      play: async (b) =>
        await poll(`/v1/playbacks/${JSON.parse(await post("/v1/playbacks", b)).playbackId}`),
      validate: async (b) =>
        await poll(
          `/v1/validations/${
            JSON.parse(await post(`/v1/sessions/${sessionId}/validations`, b)).validationId
          }`,
        ),
    });
  } finally {
    if (serve) {
      serve.child.kill("SIGTERM");
      await withDeadline(serve.child.status, 20_000, () => new Error("serve did not exit"));
      await serve.stderr;
    }
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** A playback's per-action results. */
type Results = { status: string; error?: string }[];

Deno.test("serve, a browser Cairn launched: two playbacks and two validations (each of several replays) of ls.html each see visits 1 (a fresh context each); a tab playback plays on in the last playback's context", async () => {
  await withServe({}, async (f) => {
    for (const n of [1, 2]) {
      const r = await f.play({ trail: trail(f.ls, 1), timeoutMs: 2_000 });
      assertEquals(r.status, "completed", `playback ${n}: ${JSON.stringify(r)}`);
      for (const a of r.results as Results) assertEquals(a.status, "ok", JSON.stringify(r));
    }
    // given tab-1: the page the last playback left, reloaded in its context (its storage kept)
    const onTab = await f.play({ trail: trail(f.ls, 2), tab: "tab-1", timeoutMs: 2_000 });
    assertEquals(onTab.status, "completed", JSON.stringify(onTab));
    for (const a of onTab.results as Results) {
      assertEquals(a.status, "ok", JSON.stringify(onTab));
    }

    for (const n of [1, 2]) {
      const v = await f.validate({ url: f.ls, policy: "authoring", maxIterations: 3 });
      const why = `validation ${n}: ${JSON.stringify(v)}`;
      // the Go step never converges: every replay the policy allows ran, each from a clean state
      assertEquals(v.iterations, 3, why);
      const runs = v.runs as { steps: { status: string; passed: boolean }[] }[];
      assertEquals(runs.length, 3, why);
      for (const run of runs) assertEquals(run.steps[0]!.passed, true, why);
      const steps = v.steps as { step: string; status: string }[];
      assertEquals(steps[0]!.status, "stable", why);
    }
    // and a playback after the validations (another browser) still sees a fresh context
    const after = await f.play({ trail: trail(f.ls, 1), timeoutMs: 2_000 });
    assertEquals(after.status, "completed", JSON.stringify(after));
  });
});

Deno.test("serve, CAIRN_BROWSER_WS: runs play in the user's own context, so its storage and cookies are kept across runs and shared with the user's tab", async () => {
  const user = await startUserChromium("about:blank");
  const mine = await user.connect();
  try {
    await withServe({ CAIRN_BROWSER_WS: user.ws }, async (f) => {
      const first = await f.play({ trail: trail(f.ls, 1), timeoutMs: 2_000 });
      assertEquals(first.status, "completed", JSON.stringify(first));
      const second = await f.play({ trail: trail(f.ls, 2), timeoutMs: 2_000 });
      assertEquals(second.status, "completed", JSON.stringify(second));
      for (const a of second.results as Results) {
        assertEquals(a.status, "ok", JSON.stringify(second));
      }
      // a validation there goes on counting too (its storage is the user's)
      const v = await f.validate({ url: f.ls, policy: "ci" });
      assertEquals(v.status, "failed", JSON.stringify(v));
      // the user's own tab, in the same context, sees what the runs stored
      const tab = (await mine.pages())[0]!;
      await tab.goto(f.ls, { waitUntil: "load" });
      const shown = await tab.evaluate(() => document.getElementById("v")!.textContent);
      assertStringIncludes(String(shown), "visits 4");
    });
  } finally {
    await mine.disconnect();
    await user.close();
  }
});
