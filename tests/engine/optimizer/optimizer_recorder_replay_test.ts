/**
 * A Chrome DevTools Recorder flow, optimized into a trail, replays where the flow itself does:
 * its `[data-test=…]` selectors and its `aria/Name` selectors (a name from text, not from an
 * aria-label), its chained `aria/` selectors, must become selectors playback finds; a double
 * click must double-click, and what the player cannot do as recorded (another mouse button in a
 * trail, a frame) must be reported skipped, never ok. Real Chromium on a page from 127.0.0.1.
 */
import { assertEquals } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";

const PAGE = `<!doctype html><html><head><title>Coffee</title></head><body>
<button data-test="Mocha" onclick="document.getElementById('msg').hidden = false">Mocha</button>
<a id="msg" href="#done" hidden>Thanks for your order</a>
</body></html>`;

Deno.test("cairn optimize of a Recorder flow with data-test and text-named aria selectors gives a trail that replays", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
  );
  const dir = await Deno.makeTempDir({ prefix: "cairn-recorder-trail-" });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const flow = {
      title: "order",
      steps: [
        { type: "navigate", url },
        {
          type: "click",
          selectors: [["aria/Mocha"], ["[data-test=Mocha]"]],
          offsetX: 5,
          offsetY: 5,
        },
        { type: "click", selectors: [["aria/Thanks for your order"]], offsetX: 5, offsetY: 5 },
      ],
    };
    await Deno.writeTextFile(`${dir}/flow.json`, JSON.stringify(flow));
    const db = `${dir}/cairn.db`;
    const opt = await cairn(["optimize", `${dir}/flow.json`, "--out", `${dir}/t.yaml`, "--db", db]);
    assertEquals(opt.code, 0, opt.stderr);
    const trail = await Deno.readTextFile(`${dir}/t.yaml`);
    assertEquals(trail.includes('cssPath: "[data-test=Mocha]"'), true, trail);
    const run = await cairn(["replay", `${dir}/t.yaml`, "--db", db, "--json"]);
    const report = JSON.parse(run.stdout) as PlaybackReport;
    assertEquals(
      report.results.map((r) => [r.action, r.status, r.selector_used]),
      [
        ["navigate", "ok", "navigate"],
        ["click", "ok", "css_path"],
        // v2 guesses no aria-label from `aria/Name` (v1 did, and healed to the name): the name
        // finds it at once
        ["click", "ok", "role_name"],
      ],
      run.stderr,
    );
    assertEquals(run.code, 0);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

const CORPUS = new URL("../../../../shared/corpus/chrome-recorder/", import.meta.url).pathname;

/** DevTools' recorder.html as its flows need it: every mouse button and double click logged in the url. */
const RECORDER_PAGE = `<!doctype html><html><head><title>Recorder</title></head><body>
<button id="mouse-button">Mouse click button</button>
<button id="hello"><span id="span">Hello World</span></button>
<button id="test">Test Button</button>
<iframe srcdoc="<button id='in-iframe'>iframe button</button>"></iframe>
<script>
const log = [];
const note = (w) => { log.push(w); history.replaceState(null, "", "#" + log.join(",")); };
const b = document.getElementById("mouse-button");
b.addEventListener("mousedown", (e) => note("down" + e.button));
b.addEventListener("mouseup", (e) => { if (e.button > 2) e.preventDefault(); });
b.addEventListener("contextmenu", (e) => e.preventDefault());
b.addEventListener("dblclick", () => note("dblclick"));
document.getElementById("hello").addEventListener("click", () => note("hello"));
</script></body></html>`;

/** The flows of DevTools' map whose test names start so, re-pointed at `origin`, written to `dir`. */
async function devtoolsFlows(dir: string, origin: string, names: string[]): Promise<string[]> {
  const map = JSON.parse(
    await Deno.readTextFile(`${CORPUS}devtools-frontend_recorder_test_snapshots.json`),
  ) as Record<string, unknown>;
  return await Promise.all(names.map(async (name, i) => {
    const key = Object.keys(map).find((k) => k.startsWith(name))!;
    const text = JSON.stringify(map[key]).replaceAll("https://localhost:<test-port>", origin);
    await Deno.writeTextFile(`${dir}/flow${i}.json`, text);
    return `${dir}/flow${i}.json`;
  }));
}

/** Replays a file; per action its type, status, selector level or error code, and the url's log. */
async function replayed(file: string, db: string): Promise<string[][]> {
  const run = await cairn(["replay", file, "--db", db, "--json"]);
  const report = JSON.parse(run.stdout || "null") as PlaybackReport | null;
  assertEquals(report !== null, true, run.stderr);
  return report!.results.map((r) => [
    r.action,
    r.status,
    r.selector_used ?? r.error_code ?? "",
    r.page_url?.includes("#") ? r.page_url.slice(r.page_url.indexOf("#") + 1) : "",
  ]);
}

Deno.test("cairn replay of DevTools Recorder flows (direct and optimized) double-clicks, clicks other mouse buttons, reads aria chains, skips frames honestly", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(RECORDER_PAGE, { headers: { "content-type": "text/html" } }),
  );
  const dir = await Deno.makeTempDir({ prefix: "cairn-recorder-buttons-" });
  try {
    const db = `${dir}/cairn.db`;
    const [buttons, chain, frames, network] = await devtoolsFlows(
      dir,
      `http://127.0.0.1:${server.addr.port}`,
      [
        "Recorder should capture non-primary clicks and double clicks",
        "Recorder should build an ARIA selector for the parent element that is interactive",
        "Recorder should record interactions with elements within iframes",
        "Recorder should also record network conditions",
      ],
    );
    const trail = async (flow: string) => {
      const out = flow.replace(/\.json$/, ".yaml");
      const opt = await cairn(["optimize", flow, "--out", out, "--db", db]);
      assertEquals(opt.code, 0, opt.stderr);
      return out;
    };
    // the flow as written: each mouse button pressed (1 middle, 2 right, 4 forward, 3 back),
    // then a double click that fires dblclick
    assertEquals(await replayed(buttons!, db), [
      ["navigate", "ok", "navigate", ""],
      ["click", "ok", "role_name", "down1"],
      ["click", "ok", "role_name", "down1,down2"],
      ["click", "ok", "role_name", "down1,down2,down4"],
      ["click", "ok", "role_name", "down1,down2,down4,down3"],
      ["double_click", "ok", "role_name", "down1,down2,down4,down3,down0,down0,dblclick"],
    ]);
    // the trail: the other buttons are the agent's steps (skipped), the double click is one
    assertEquals(await replayed(await trail(buttons!), db), [
      ["navigate", "ok", "navigate", ""],
      ["agent_step", "skipped", "unsupported_action_type", ""],
      ["agent_step", "skipped", "unsupported_action_type", ""],
      ["agent_step", "skipped", "unsupported_action_type", ""],
      ["agent_step", "skipped", "unsupported_action_type", ""],
      ["double_click", "ok", "role_name", "down0,down0,dblclick"],
    ]);
    // `aria/Hello World` > `aria/[role="generic"]`: the button named Hello World, found by its
    // name at once (not healed to the span's id)
    for (const file of [chain!, await trail(chain!)]) {
      assertEquals(await replayed(file, db), [
        ["navigate", "ok", "navigate", ""],
        ["click", "ok", "role_name", "hello"],
      ], file);
    }
    // clicks inside a frame: skipped, in the flow and in its trail, never played on the top frame
    assertEquals(await replayed(frames!, db), [
      ["navigate", "ok", "navigate", ""],
      ["click_in_frame", "skipped", "unsupported_action_type", ""],
      ["click_in_frame", "skipped", "unsupported_action_type", ""],
    ]);
    assertEquals((await replayed(await trail(frames!), db)).map((r) => r[0]), [
      "navigate",
      "agent_step",
      "agent_step",
    ]);
    // emulateNetworkConditions first: the flow still opens its page, the step is skipped
    assertEquals((await replayed(network!, db)).map((r) => `${r[0]} ${r[1]}`), [
      "emulateNetworkConditions skipped",
      "navigate ok",
      "click ok",
      "emulateNetworkConditions skipped",
      "click ok",
    ]);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
