import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { RecordingV1 } from "../../../engine/formats/recording_v1.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { alive, blazeCli as cairn } from "../../_fixtures/blaze_cli_run.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

Deno.test("cairn blaze runs a recorded flow across separate processes and writes recording_v1", async () => {
  const dir = await Deno.makeTempDir();
  const db = `${dir}/cairn.db`;
  const server = serveFolder();
  let pid: number | undefined;
  try {
    const none = await cairn(db, "snapshot");
    assertEquals(none.code, 2);
    assertStringIncludes(none.stderr, "cairn blaze start");

    // a start that cannot open its page fails and leaves no daemon behind
    const refused = await cairn(db, "start", "--url", "http://127.0.0.1:9/", "--prompt", "x");
    assertEquals(refused.code, 1, refused.stderr);
    assertStringIncludes(refused.stderr, "Cannot navigate");
    assert(!(await Deno.stat(`${db}.blaze.json`).then(() => true, () => false)));

    const start = await cairn(
      db,
      "start",
      "--url",
      server.url + "cart.html",
      "--prompt",
      "Add two coffees",
    );
    assertEquals(start.code, 0, start.stderr);
    pid = JSON.parse(await Deno.readTextFile(`${db}.blaze.json`)).pid;
    assertEquals((await cairn(db, "step", "Add two coffees")).code, 0);
    const snap = await cairn(db, "snapshot", "--bounds");
    assertEquals(snap.code, 0, snap.stderr);
    assertStringIncludes(snap.stdout, "{x:");
    const plus = refIn(snap.stdout, "Add one Coffee");
    for (let i = 0; i < 2; i++) {
      const tap = await cairn(db, "tap", `ref=${plus}`);
      assertEquals(tap.code, 0, tap.stderr);
      assertStringIncludes(tap.stdout, 'Tapped button "Add one Coffee"');
    }
    const diff = await cairn(db, "snapshot", "--bounds", "--diff");
    assertEquals(diff.code, 0, diff.stderr);
    assert(/^~ /m.test(diff.stdout), diff.stdout); // only the changed lines
    assert(!diff.stdout.includes("Checkout"), diff.stdout);
    const shallow = await cairn(db, "snapshot", "--depth", "1");
    assertEquals(shallow.code, 0, shallow.stderr);
    const shot = await cairn(db, "screenshot", "--marks", "--out", `${dir}/marks.png`);
    assertEquals(shot.code, 0, shot.stderr);
    assertStringIncludes(shot.stdout, "marks");
    const png = await Deno.readFile(`${dir}/marks.png`);
    assertEquals([...png.slice(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
    const total = refIn((await cairn(db, "snapshot")).stdout, "$15.98");
    assertEquals(
      (await cairn(db, "read", `ref=${total}`, "storeAs=total")).stdout.trim(),
      'total = "$15.98"',
    );
    assertEquals((await cairn(db, "assert", `ref=${total}`, "text=$15.98")).code, 0);
    const wrong = await cairn(db, "assert", `ref=${total}`, "text=$1.00");
    assertEquals(wrong.code, 1);
    assertEquals((await cairn(db, "tap", "ref=Nope")).code, 2);
    assertEquals((await cairn(db, "tap", "x=10,y=10")).code, 0);
    assertEquals((await cairn(db, "memory", "get", "total")).stdout.trim(), "$15.98");

    const end = await cairn(db, "end", "--reason", "completed", "--out", `${dir}/out`);
    assertEquals(end.code, 0, end.stderr);
    const files = [...Deno.readDirSync(`${dir}/out`)].map((f) => f.name).sort();
    assertEquals(files.length, 2);
    assert(/^vw-ax-agent-[0-9a-f-]+-\d{8}-\d{6}\.json$/.test(files[1]!), files[1]);
    assert(files[0]!.endsWith(".capture.json"));
    const recording = RecordingV1.parse(
      JSON.parse(await Deno.readTextFile(`${dir}/out/${files[1]}`)),
    );
    assertEquals(recording.mode, "agent");
    assertEquals(recording.summary?.ended_reason, "completed");
    assertEquals(recording.summary?.action_count, 7);
    // the daemon and its browser are gone
    assert(!(await Deno.stat(`${db}.blaze.json`).then(() => true, () => false)));
    // the daemon exits after its answer, once it has closed its browser: awaited, bounded
    await waitUntil("the daemon to exit", () => !alive(pid!));
    // everything stays in the log, the refused start too (ended as failed)
    const store = SqliteEventStore.open(db);
    const streams = await store.streams("session-");
    const reasons: string[] = [];
    for (const s of streams) {
      for await (const e of store.readStream(s.streamId)) {
        if (e.type === "SessionEnded") reasons.push(e.data.reason);
      }
    }
    store.close();
    assertEquals(reasons, ["failed", "completed"]);
  } finally {
    if (pid !== undefined && alive(pid)) Deno.kill(pid, "SIGTERM");
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
