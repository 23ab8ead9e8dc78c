/**
 * A Chrome DevTools Recorder flow, optimized into a trail, replays where the flow itself does:
 * its `[data-test=…]` selectors and its `aria/Name` selectors (a name from text, not from an
 * aria-label) must become selectors playback finds. Real Chromium on a page from 127.0.0.1.
 */
import { assertEquals } from "./assert.ts";
import { cairn } from "./cli_run.ts";
import type { PlaybackReport } from "../engine/playback/report.ts";

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
