import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../../../drivers/chrome/human_recorder.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { readSession, sessionToRecording } from "../../../runners/record/session_export.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { RecordingV1 } from "../../../engine/formats/recording_v1.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { stringifyTrail } from "../../../engine/trail/trail.ts";
import { ingestFile } from "../../../cli/ingest.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

async function clickCentre(d: ChromeDriver, css: string): Promise<void> {
  const at = await d.page.$eval(css, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  });
  await d.page.mouse.click(at.x, at.y, { delay: 40 });
  await d.waitForSettle({ quietMs: 150 });
  await new Promise((r) => setTimeout(r, 150));
}

Deno.test("an agent and a human recording of one flow share recording_v1 and optimize into trails", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const url = server.url + "cart.html";
  const prompt = "Add an apple and check out";
  try {
    // the agent, through the blaze tools
    const agentDriver = await ChromeDriver.launch();
    let agentId: string;
    try {
      const s = await BlazeSession.start(agentDriver, store, { url, prompt, screenshots: false });
      agentId = s.id;
      await s.call("step", { text: "Add an apple" });
      const snap = (await s.call("snapshot", {})).output;
      assert((await s.call("tap", { ref: refIn(snap, "Add one Apple") })).ok);
      await s.call("step", { text: "Check out" });
      assert((await s.call("tap", { ref: refIn(snap, "Checkout") })).ok);
      await s.end("completed");
    } finally {
      await agentDriver.close();
    }
    // a person, with the mouse
    const humanDriver = await ChromeDriver.launch();
    let humanId: string;
    try {
      const r = await HumanRecorder.start(humanDriver, store, { url, prompt });
      humanId = r.id;
      await humanDriver.waitForSettle({ quietMs: 150 });
      await clickCentre(humanDriver, "[data-testid=inc-apple]");
      await clickCentre(humanDriver, "#checkout");
      await r.stop();
    } finally {
      await humanDriver.close();
    }

    const files: Record<string, string> = {};
    const recordings: Record<string, RecordingV1> = {};
    for (const [mode, id] of [["agent", agentId], ["human", humanId]] as const) {
      const json = JSON.parse(JSON.stringify(sessionToRecording(await readSession(store, id))));
      recordings[mode] = RecordingV1.parse(json); // one schema for both
      files[mode] = `${dir}/${mode}.json`;
      await Deno.writeTextFile(files[mode]!, JSON.stringify(json));
    }
    const agent = recordings.agent!;
    const human = recordings.human!;
    assertEquals([agent.mode, human.mode], ["agent", "human"]);
    assertEquals(Object.keys(agent).sort(), Object.keys(human).sort());
    const kinds = (r: RecordingV1) =>
      r.timeline.map((e) => e.kind).filter((k) => k !== "ax_snapshot");
    assertEquals(kinds(agent).filter((k) => k === "decision").length, 2);
    assertEquals(kinds(human).filter((k) => k === "human_action").length, 2);
    const targets = (r: RecordingV1) =>
      r.timeline.flatMap((e) =>
        e.kind === "decision" || e.kind === "human_action"
          ? [[e.step.action_type, e.step.target?.role, e.step.target?.name]]
          : []
      );
    assertEquals(targets(agent).map((t) => t.slice(1)), targets(human).map((t) => t.slice(1)));
    assertEquals(targets(human).map((t) => t[2]), ["Add one Apple", "Checkout"]);

    // each file ingests into a fresh log and optimizes into a trail
    const fresh = SqliteEventStore.open(`${dir}/ingest.db`);
    const steps: string[] = [];
    try {
      for (const mode of ["agent", "human"] as const) {
        const { sessionId } = await ingestFile(fresh, files[mode]!);
        const projection = await projectSessionTrail(fresh, sessionId, { mode: "adaptive" });
        const yaml = stringifyTrail(projection.trail);
        assert(yaml.includes("inc-apple"), `${mode} trail:\n${yaml}`);
        assert(yaml.includes("checkout"), `${mode} trail:\n${yaml}`);
        // v3 ends each chain with the point clicked: the agent's and the person's differ
        const trail = yaml.slice(yaml.indexOf("trail:"));
        steps.push(trail.replace(/- xy: \[ \d+, \d+ \]/g, "- xy: [ x, y ]"));
      }
      assertEquals(steps[0], steps[1]); // the same flow gives the same trail
    } finally {
      fresh.close();
    }
  } finally {
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
