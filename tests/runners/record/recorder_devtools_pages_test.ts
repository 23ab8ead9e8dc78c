/**
 * DevTools' own Recorder flows, replayed as recorded (their urls say
 * `https://localhost:<test-port>/…`) and as trails, in real Chromium on pages from 127.0.0.1
 * shaped as DevTools' test pages: a `text/` selector is text the element contains (the Recorder
 * writes its first words), a flow's `selectorAttribute` is the author's test id, Shift+Tab is one
 * key press with Shift held, and `--url` re-points the placeholder urls (without it: exit 2).
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";

const CORPUS = new URL("../../../../shared/corpus/chrome-recorder/", import.meta.url).pathname;
const DIR = "/test/e2e/resources/recorder/";

/** Each page notes what was clicked or focused in its url's fragment. */
const NOTE = `<script>
const note = (w) => history.replaceState(null, "", "#" + [location.hash.slice(1), w].filter(Boolean).join(","));
for (const b of document.querySelectorAll("button")) b.addEventListener("click", () => note(b.id));
</script>`;

const PAGES: Record<string, string> = {
  "recorder.html": `<!doctype html><html><head><title>Recorder</title></head><body><div>
<button id="test">Test Button</button>
<a href="recorder2.html">Page 2</a>
<button id="synthetic">Trigger Synthetic Event</button>
<button id="selector-attribute" data-devtools-test="selector-attribute">
  Custom selector attribute
</button>
</div>${NOTE}</body></html>`,
  "recorder2.html": `<!doctype html><html><head><title>Page 2</title></head><body>
<h1>Page 2</h1>
<a href="recorder.html">Back to Page 1</a>
</body></html>`,
  "input.html": `<!doctype html><html><head><title>Inputs</title></head><body>
<input id="one"><input id="two"><input id="three">
<script>
const note = (w) => history.replaceState(null, "", "#" + [location.hash.slice(1), w].filter(Boolean).join(","));
addEventListener("focusin", (e) => note(e.target.id));
document.getElementById("one").focus();
</script></body></html>`,
};

/** The flows of DevTools' map whose test names start so, as recorded, written to `dir`. */
async function devtoolsFlows(dir: string, names: Record<string, string>): Promise<void> {
  const map = JSON.parse(
    await Deno.readTextFile(`${CORPUS}devtools-frontend_recorder_test_snapshots.json`),
  ) as Record<string, { steps: { selectors?: string[][] }[] }>;
  for (const [file, name] of Object.entries(names)) {
    const key = Object.keys(map).find((k) => k.startsWith(name));
    assert(key, name);
    await Deno.writeTextFile(`${dir}/${file}.json`, JSON.stringify(map[key]));
    // the same flow with only its text/ selectors (a Recorder set to record text selectors)
    const steps = map[key]!.steps.map((s) =>
      s.selectors ? { ...s, selectors: s.selectors.filter((c) => c[0]!.startsWith("text/")) } : s
    );
    await Deno.writeTextFile(`${dir}/${file}.text.json`, JSON.stringify({ ...map[key], steps }));
  }
}

/** Replays a file at `url`; per action its type, status, level or error code, and the page's notes. */
async function replayed(file: string, db: string, url: string): Promise<string[][]> {
  const run = await cairn(["replay", file, "--url", url, "--db", db, "--json"]);
  const report = JSON.parse(run.stdout || "null") as PlaybackReport | null;
  assert(report !== null, run.stderr);
  return report.results.map((r) => [
    r.action,
    r.status,
    r.selector_used ?? r.error_code ?? "",
    r.page_url?.includes("#")
      ? r.page_url.slice(r.page_url.indexOf("#") + 1)
      : r.page_url?.slice(r.page_url.lastIndexOf("/") + 1) ?? "",
  ]);
}

const FLOWS = {
  custom: "Recorder should capture clicks on buttons with custom selector attribute",
  synthetic: "Recorder should not capture synthetic events",
  pages: "Recorder should wait for navigations in the generated scripts",
  back: "Recorder should capture navigation without change",
};

/** Serves the pages, writes the flows, and runs `fn` with the folder, database and --url. */
async function withPages(
  fn: (dir: string, db: string, url: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    const page = path.startsWith(DIR) ? PAGES[path.slice(DIR.length)] : undefined;
    return page === undefined
      ? new Response("not found", { status: 404 })
      : new Response(page, { headers: { "content-type": "text/html" } });
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn-recorder-pages-" });
  try {
    await devtoolsFlows(dir, FLOWS);
    await fn(dir, `${dir}/cairn.db`, `http://127.0.0.1:${server.addr.port}/`);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Optimizes a written flow in a mode; returns the trail's path. */
async function trail(dir: string, db: string, flow: string, mode: string): Promise<string> {
  const out = `${dir}/${flow}.${mode}.yaml`;
  const opt = await cairn([
    "optimize",
    `${dir}/${flow}.json`,
    "--mode",
    mode,
    "--out",
    out,
    "--db",
    db,
  ]);
  assertEquals(opt.code, 0, opt.stderr);
  return out;
}

Deno.test("cairn replay of a DevTools flow recorded at https://localhost:<test-port>/ exits 2 naming the url, and plays at --url", async () => {
  await withPages(async (dir, db, url) => {
    const bare = await cairn(["replay", `${dir}/custom.json`, "--db", db]);
    assertEquals(bare.code, 2, bare.stderr);
    assertEquals(
      bare.stderr.trim(),
      `cairn replay: ${dir}/custom.json: action 0 navigates to ` +
        `"https://localhost:<test-port>${DIR}recorder.html", which is not a url ` +
        "(a placeholder host or port?): pass --url to re-point it at your server",
    );
    // the trail keeps the recorded url (config.url, navigate) and is re-pointed the same way
    const flexible = await trail(dir, db, "pages", "flexible");
    assertEquals((await cairn(["replay", flexible, "--db", db])).code, 2);
    assertEquals((await replayed(flexible, db, url)).map((r) => `${r[0]} ${r[1]} ${r[3]}`), [
      "navigate ok recorder.html",
      "click ok recorder2.html",
      "click ok recorder.html",
    ]);
  });
});

Deno.test("cairn replay of DevTools flows reads text/ as Chrome does (contained text), as recorded and as flexible trails", async () => {
  await withPages(async (dir, db, url) => {
    // the flows with their text/ selectors alone: the element whose text contains it
    assertEquals(await replayed(`${dir}/custom.text.json`, db, url), [
      ["navigate", "ok", "navigate", "recorder.html"],
      ["click", "ok", "text", "selector-attribute"],
    ]);
    assertEquals((await replayed(`${dir}/synthetic.text.json`, db, url))[1], [
      "click",
      "ok",
      "text",
      "synthetic",
    ]);
    assertEquals(await replayed(`${dir}/pages.text.json`, db, url), [
      ["navigate", "ok", "navigate", "recorder.html"],
      ["click", "ok", "text", "recorder2.html"],
      ["click", "ok", "text", "recorder.html"],
    ]);
    // flexible takes text first: a textRegex of the text's start, not the first words exactly
    const custom = await trail(dir, db, "custom", "flexible");
    assert((await Deno.readTextFile(custom)).includes('textRegex: "Custom selector.*"'));
    assertEquals((await replayed(custom, db, url))[1], [
      "click",
      "ok",
      "text",
      "selector-attribute",
    ]);
    assertEquals((await replayed(await trail(dir, db, "synthetic", "flexible"), db, url))[1], [
      "click",
      "ok",
      "text",
      "synthetic",
    ]);
    assertEquals(await replayed(await trail(dir, db, "pages", "flexible"), db, url), [
      ["navigate", "ok", "navigate", "recorder.html"],
      ["click", "ok", "text", "recorder2.html"],
      ["click", "ok", "text", "recorder.html"],
    ]);
  });
});

Deno.test("cairn replay of a DevTools flow with a selectorAttribute finds the element by it first, as recorded and as a trail", async () => {
  await withPages(async (dir, db, url) => {
    assertEquals(await replayed(`${dir}/custom.json`, db, url), [
      ["navigate", "ok", "navigate", "recorder.html"],
      ["click", "ok", "css", "selector-attribute"],
    ]);
    assertEquals((await replayed(await trail(dir, db, "custom", "adaptive"), db, url))[1], [
      "click",
      "ok",
      "css_path",
      "selector-attribute",
    ]);
  });
});

Deno.test("cairn replay of DevTools' Shift+Tab presses Tab with Shift held: focus goes back, as recorded and as a trail", async () => {
  await withPages(async (dir, db, url) => {
    // Tab from one to two, then Shift+Tab back to one (not Shift, then Tab on to three)
    for (const file of [`${dir}/back.json`, await trail(dir, db, "back", "flexible")]) {
      assertEquals((await replayed(file, db, url)).slice(1), [
        ["key_press", "ok", "keyboard", "one,two"],
        ["key_press", "ok", "keyboard", "one,two,one"],
      ], file);
    }
  });
});

Deno.test("cairn validate --url of a DevTools flow writes a trail that navigates to --url, which replays without it", async () => {
  await withPages(async (dir, db, url) => {
    const ingest = await cairn(["ingest", `${dir}/pages.json`, "--db", db]);
    assertEquals(ingest.code, 0, ingest.stderr);
    const session = ingest.stdout.trim().split("\n").at(-1)!.split(/\s/)[0]!;
    const out = `${dir}/pages.validated.yaml`;
    const run = await cairn(["validate", session, "--url", url, "--out", out, "--db", db]);
    assertEquals(run.code, 0, run.stderr + run.stdout);
    const written = await Deno.readTextFile(out);
    assert(!written.includes("<test-port>"), written);
    assert(written.includes(`${url.slice(0, -1)}${DIR}recorder.html`), written);
    // proven at --url, it now plays there as written
    const bare = await cairn(["replay", out, "--db", db]);
    assertEquals(bare.code, 0, bare.stderr + bare.stdout);
  });
});
