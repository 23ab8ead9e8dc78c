/**
 * `cairn record` as a person records: a headed Chromium on an Xvfb display, driven with real OS
 * input (xdotool moves the mouse and presses keys; no puppeteer input), on pages served from
 * 127.0.0.1. One Xvfb for the file; each flow is recorded, replayed as recorded, optimized and
 * the trail replayed. Covers a click on the page's background and Enter with nothing focused
 * (replayed: no wrong element), a page left without actions, the address bar, F5, Ctrl+T with a
 * typed url, and switching tabs and back.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";
import { record, serveSite, sleep, startXvfb } from "../../_fixtures/xvfb_person.ts";

const STYLE = `<style>body{margin:0;font:16px sans-serif}
.at{position:absolute}</style>`;
const PAGES: Record<string, string> = {
  "/home": `<title>Home</title>${STYLE}
<input class="at" style="left:40px;top:40px;width:300px;height:30px" id="q" aria-label="Search">
<a class="at" style="left:40px;top:120px" id="docs" href="/docs">Docs</a>
<button class="at" style="left:440px;top:330px;width:400px;height:140px" id="del"
  onclick="location.href='/deleted'">Delete account</button>`,
  "/docs": `<title>Docs</title>${STYLE}
<button class="at" style="left:40px;top:40px;width:160px;height:50px" id="like"
  onclick="n.textContent = Number(n.textContent) + 1">Like</button>
<p class="at" style="left:40px;top:120px" id="n">0</p>`,
  "/other": `<title>Other</title>${STYLE}
<button class="at" style="left:40px;top:40px;width:160px;height:50px" id="ping"
  onclick="out.textContent = 'Pong'">Ping</button>
<p class="at" style="left:40px;top:120px" id="out"></p>`,
  "/deleted": `<title>Deleted</title><h1>Your account is deleted</h1>`,
};

/** Replays a file headless: per action its type, status and selector level or error. */
async function replay(file: string, db: string): Promise<string[][]> {
  const run = await cairn(["replay", file, "--db", db, "--json"]);
  const report = JSON.parse(run.stdout || "null") as PlaybackReport | null;
  assert(report !== null, run.stderr);
  return report.results.map((r) => [
    r.action,
    r.status,
    r.page_url?.replace(/^http:\/\/127\.0\.0\.1:\d+/, "") ?? "",
    r.error ?? "",
  ]);
}

/** Optimizes a recording into a trail and replays it; the results of the replay. */
async function optimizedReplay(
  file: string,
  db: string,
): Promise<{ yaml: string; results: string[][] }> {
  const out = file.replace(/\.json$/, ".trail.yaml");
  const opt = await cairn(["optimize", file, "--out", out, "--db", db]);
  assertEquals(opt.code, 0, opt.stderr);
  return { yaml: await Deno.readTextFile(out), results: await replay(out, db) };
}

function allOk(results: string[][], what: string): void {
  const bad = results.filter((r) => r[1] !== "ok");
  assertEquals(bad, [], `${what}: ${JSON.stringify(results)}`);
}

Deno.test({
  name:
    "cairn record under Xvfb with real mouse and keyboard input: background click, Enter on the body, address bar, F5, Ctrl+T, tab switches; each replays and its trail replays",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const x = await startXvfb();
    const display = x.name;
    const site = serveSite(PAGES);
    const dir = await Deno.makeTempDir({ prefix: "cairn-xvfb-" });
    const db = `${dir}/cairn.db`;
    try {
      await t.step("a click on the background and Enter with nothing focused", async () => {
        const r = await record(dir, display, site, "/home", async (p) => {
          await p.click(640, 620); // empty space below the content
          await p.key("Return"); // nothing focused
          await p.click(190, 55); // the search field
          await p.type("cats");
          await sleep(700);
          await p.key("Tab"); // commits the value: its time is the Tab's, its start the "c"'s
          await p.click(60, 128); // the Docs link
          await p.waitTitle("Docs");
          await p.click(100, 60); // Like
        });
        const kinds = r.actions.map((a) => a.step.action_type);
        assertEquals(kinds, ["click", "key_press", "click", "type", "key_press", "click", "click"]);
        const [bg, enter, , typed] = r.actions;
        // the value: committed at the Tab, begun at its first keystroke (a second before)
        assertEquals(typed.step.value, "cats");
        const began = Date.parse(typed.started_at);
        assert(Date.parse(typed.t) - began >= 700, `${typed.started_at} → ${typed.t}`);
        // the page's background: where it is, never a name or text from what the page shows
        assertEquals(bg.step.target.name ?? null, null);
        assertEquals(Object.keys(bg.step.target.selectors ?? {}).sort(), ["cssPath", "tag"]);
        // Enter on the body: a key of the page, no element of its own
        assertEquals([enter.step.value, enter.step.target?.selectors ?? null], ["Enter", null]);
        const played = await replay(r.file, db);
        allOk(played, "the recording");
        assert(!played.some((x) => (x[2] ?? "").includes("deleted")), JSON.stringify(played));
        const trail = await optimizedReplay(r.file, db);
        assert(!trail.yaml.includes("Delete account"), trail.yaml);
        allOk(trail.results, "its trail");
        assertEquals(trail.results.at(-1)![2], "/docs");
      });

      await t.step("a page left without actions, the address bar and F5", async () => {
        const r = await record(dir, display, site, "/home", async (p) => {
          await sleep(800); // the start page: looked at, left without an action
          await p.address(`${site.base}/docs`);
          await p.waitTitle("Docs");
          await p.calibrate();
          await p.click(100, 60);
          await p.key("F5");
          await sleep(800);
          await p.click(100, 60);
        });
        const kinds = r.actions.map((a) => `${a.step.action_type} ${a.step.value ?? ""}`.trim());
        assertEquals(kinds, [
          `navigate ${site.base}/docs`,
          "click",
          `reload ${site.base}/docs`,
          "click",
        ]);
        // a snapshot of every page shown, the one left without an action included
        const shots = r.rec.timeline.filter((e: { kind: string }) => e.kind === "ax_snapshot");
        assert(
          shots.some((s: { url?: string }) => s.url === `${site.base}/home`),
          "no snapshot of the start page",
        );
        allOk(await replay(r.file, db), "the recording");
        const trail = await optimizedReplay(r.file, db);
        assert(trail.yaml.includes("reload"), trail.yaml);
        allOk(trail.results, "its trail");
      });

      await t.step("Ctrl+T with a typed url, then switching tabs and back", async () => {
        const r = await record(dir, display, site, "/docs", async (p) => {
          await p.click(100, 60); // Like in the first tab
          await p.key("ctrl+t");
          await p.waitTitle("New Tab");
          await p.address(`${site.base}/other`);
          await p.waitTitle("Other");
          await p.calibrate();
          await p.click(100, 60); // Ping in the new tab
          await p.key("ctrl+1");
          await p.waitTitle("Docs");
          await p.click(100, 60); // Like again, back in the first tab
          await p.key("ctrl+2");
          await p.waitTitle("Other");
          await p.click(100, 60); // Ping again
        });
        const kinds = r.actions.map((a) =>
          `${a.step.action_type}${a.step.new_tab ? " new" : ""} ${
            (a.step.value ?? "").replace(site.base, "")
          }`.trim()
        );
        assertEquals(kinds, [
          "click",
          "switch_tab new",
          "navigate /other",
          "click",
          "switch_tab /docs",
          "click",
          "switch_tab /other",
          "click",
        ]);
        // back in the first tab: its screen before was captured before the switch, and says so
        assert(
          String(r.actions[5].notes).includes("captured earlier"),
          JSON.stringify(r.actions[5]),
        );
        // the tab gone back to: its url and title
        assertEquals(r.actions[4].step.target?.name, "Docs");
        // the browser's own new-tab page: a navigation, never a snapshot or an action
        assert(!JSON.stringify(r.actions).includes("chrome://"), JSON.stringify(r.actions));
        const shots = r.rec.timeline.filter((e: { kind: string }) => e.kind === "ax_snapshot");
        assert(!shots.some((s: { url?: string }) => s.url?.startsWith("chrome:")));
        const played = await replay(r.file, db);
        allOk(played, "the recording");
        assertEquals(played.map((x) => x[2]).filter((u) => u).at(-1), "/other");
        const trail = await optimizedReplay(r.file, db);
        assert(trail.yaml.includes("switchTab"), trail.yaml);
        allOk(trail.results, "its trail");
      });
    } finally {
      await site.close();
      await x.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
