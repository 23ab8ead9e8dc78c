/**
 * A click recorded on the page's background never replays onto another element: a recording
 * whose background click carries the root's role and a name taken from the text inside the page
 * (what recorders wrote before: `RootWebArea "Delete account"`, cssPath `html`) plays at its point
 * on the page, and is refused — not healed — when a control is at that point now. The new action
 * kinds (`switch_tab` with `new_tab`, `reload`, a value's `started_at`) survive recording_v1
 * import and export and a trail's write and read. Real Chromium (headless) on 127.0.0.1.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";
import { eventsToRecording, recordingToEvents } from "../../../engine/formats/recording_v1.ts";
import { parseTrail, stringifyTrail } from "../../../engine/trail/trail.ts";

const HOME = `<!doctype html><html><head><title>Home</title>
<style>body{margin:0}.at{position:absolute}</style></head><body>
<input class="at" style="left:40px;top:40px;width:300px" id="q" aria-label="Search">
<button class="at" style="left:440px;top:330px;width:400px;height:140px"
  onclick="location.href='/deleted'">Delete account</button></body></html>`;

/** A human recording of one background click at `point`, as the old recorder stored it. */
function backgroundClick(base: string, point: { x: number; y: number }): unknown {
  const t = (s: number) => new Date(Date.UTC(2026, 10, 28, 10, 0, s)).toISOString();
  return {
    schema_version: "recording_v1",
    mode: "human",
    id: "bg-click",
    created_at: t(0),
    ended_at: t(9),
    prompt: { type: "human_example_prompt", text: "click the background" },
    timeline: [
      { t: t(1), kind: "navigation", url: `${base}/home`, tab_id: "tab-1" },
      {
        t: t(2),
        kind: "human_action",
        source: "human",
        url: `${base}/home`,
        tab_id: "tab-1",
        step: {
          step_id: "a1",
          action_type: "click",
          value: null,
          target: {
            role: "RootWebArea",
            name: "Delete account",
            selectors: { name: "Delete account", text: "Delete account", cssPath: "html" },
          },
          ...point,
        },
      },
    ],
  };
}

Deno.test("a background click recorded with the root's role and a name from the page's text never replays onto the button", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (r) =>
      new Response(new URL(r.url).pathname === "/home" ? HOME : "<h1>deleted</h1>", {
        headers: { "content-type": "text/html" },
      }),
  );
  const dir = await Deno.makeTempDir({ prefix: "cairn-root-click-" });
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const play = async (point: { x: number; y: number }) => {
      const file = `${dir}/rec-${point.y}.json`;
      await Deno.writeTextFile(file, JSON.stringify(backgroundClick(base, point)));
      const run = await cairn(["replay", file, "--db", `${dir}/c.db`, "--json"]);
      const report = JSON.parse(run.stdout || "null") as PlaybackReport | null;
      assert(report !== null, run.stderr);
      return report.results.map((r) => [r.action, r.status, r.page_url?.replace(base, "") ?? ""]);
    };
    // on empty space: clicked there, the page stays
    const empty = await play({ x: 640, y: 700 });
    assertEquals(empty.map((r) => r.slice(0, 2)), [["navigate", "ok"], ["click", "ok"]]);
    assert(!JSON.stringify(empty).includes("deleted"), JSON.stringify(empty));
    // where the button is now: refused, never clicked (the page is never deleted)
    const onButton = await play({ x: 640, y: 400 });
    assertEquals(onButton.map((r) => r.slice(0, 2)), [["navigate", "ok"], ["click", "failed"]]);
    assert(!JSON.stringify(onButton).includes("deleted"), JSON.stringify(onButton));
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("switch_tab (new_tab), reload and a value's started_at survive recording_v1 export and import, and a trail's write and read", () => {
  const at = (s: number) => ({
    recordedAt: new Date(Date.UTC(2026, 10, 28, 10, 0, s)).toISOString(),
  });
  const act = (id: string, data: Record<string, unknown>, s: number) => [
    {
      type: "ActionPerformed" as const,
      data: { actionId: id, source: "human" as const, ...data },
      meta: at(s),
    },
    {
      type: "ActionCompleted" as const,
      data: { actionId: id, ok: true, durationMs: 0 },
      meta: at(s),
    },
  ];
  const events = [
    {
      type: "SessionStarted" as const,
      data: { sessionId: "s1", mode: "human" as const, platform: "web" as const, prompt: "p" },
      meta: at(0),
    },
    ...act("a1", {
      kind: "inputText",
      text: "cats",
      toolParams: { startedAt: at(1).recordedAt },
      tabId: "tab-1",
    }, 3),
    ...act("a2", { kind: "switchTab", toolParams: { newTab: true }, tabId: "tab-2" }, 4),
    ...act("a3", { kind: "navigate", url: "http://127.0.0.1:1/b", tabId: "tab-2" }, 5),
    ...act("a4", { kind: "reload", url: "http://127.0.0.1:1/b", tabId: "tab-2" }, 6),
    ...act("a5", {
      kind: "switchTab",
      url: "http://127.0.0.1:1/a",
      target: { name: "Page A" },
      tabId: "tab-1",
    }, 7),
    { type: "SessionEnded" as const, data: { reason: "completed" as const }, meta: at(8) },
  ];
  // deno-lint-ignore no-explicit-any
  const rec = eventsToRecording(events as any, { blobs: new Map() });
  // deno-lint-ignore no-explicit-any
  const steps = rec.timeline.filter((e) => e.kind === "human_action") as any[];
  assertEquals(
    steps.map((e) => [e.step.action_type, e.step.value ?? null, e.step.new_tab ?? false]),
    [
      ["type", "cats", false],
      ["switch_tab", null, true],
      ["navigate", "http://127.0.0.1:1/b", false],
      ["reload", "http://127.0.0.1:1/b", false],
      ["switch_tab", "http://127.0.0.1:1/a", false],
    ],
  );
  assertEquals([steps[0].started_at, steps[0].t], [at(1).recordedAt, at(3).recordedAt]);
  assertEquals(steps[4].step.target.name, "Page A");
  const back = recordingToEvents(JSON.parse(JSON.stringify(rec)), { sessionId: "s2" }).events
    .flatMap((e) => e.type === "ActionPerformed" ? [e.data] : []);
  assertEquals(
    back.map((d) => [d.kind, d.url ?? null, d.toolParams?.newTab ?? false]),
    [
      ["inputText", null, false],
      ["switchTab", null, true],
      ["navigate", "http://127.0.0.1:1/b", false],
      ["reload", "http://127.0.0.1:1/b", false],
      ["switchTab", "http://127.0.0.1:1/a", false],
    ],
  );
  assertEquals(back[0]!.toolParams?.startedAt, at(1).recordedAt);

  const yaml = `config:
  id: tabs
  platform: web
trail:
  - step: Open a tab and come back
    recording:
      - switchTab:
          newTab: true
      - navigate: http://127.0.0.1:1/b
      - reload
      - switchTab: http://127.0.0.1:1/a
`;
  const trail = parseTrail(yaml);
  assertEquals(trail.trail[0]!.recording, [
    { kind: "switchTab", newTab: true },
    { kind: "navigate", url: "http://127.0.0.1:1/b" },
    { kind: "reload" },
    { kind: "switchTab", url: "http://127.0.0.1:1/a" },
  ]);
  assertEquals(parseTrail(stringifyTrail(trail)), trail);
  let refused = "";
  try {
    parseTrail(yaml.replace("newTab: true", "newTab: false"));
  } catch (err) {
    refused = String(err);
  }
  assert(refused.includes("switchTab.url: required"), refused);
});

Deno.test("cairn optimize of an older recording's Enter with nothing focused (credited to the element in the page's middle) writes a key of the page", async () => {
  const example = `${new URL("../../../examples/human_record/", import.meta.url).pathname}`;
  const name = [...Deno.readDirSync(example)].find((f) => f.name.startsWith("vw-ax-human-"))!;
  const rec = JSON.parse(await Deno.readTextFile(example + name.name));
  // the Enter as the older recorder stored it: the body's cssPath, the role and name of the
  // element at the page's middle, that point
  const enter = rec.timeline.find((e: { step?: { action_type: string } }) =>
    e.step?.action_type === "key_press"
  );
  enter.step.target = {
    role: "textbox",
    name: "Password",
    selectors: { role: "textbox", name: "Password", cssPath: "html > body" },
  };
  const dir = await Deno.makeTempDir({ prefix: "cairn-page-key-" });
  try {
    await Deno.writeTextFile(`${dir}/rec.json`, JSON.stringify(rec));
    const run = await cairn([
      "optimize",
      `${dir}/rec.json`,
      "--out",
      `${dir}/t.yaml`,
      "--db",
      `${dir}/c.db`,
    ]);
    assertEquals(run.code, 0, run.stderr);
    const yaml = await Deno.readTextFile(`${dir}/t.yaml`);
    const trail = parseTrail(yaml);
    const keys = trail.trail.flatMap((s) => s.recording ?? []).filter((a) => a.kind === "keyPress");
    assertEquals(keys, [{ kind: "keyPress", key: "Enter" }], yaml);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
