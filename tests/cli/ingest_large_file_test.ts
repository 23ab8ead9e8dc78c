import { assertEquals, assertRejects } from "../_fixtures/assert.ts";
import { prepareFile } from "../../cli/ingest.ts";
import { InputError } from "../../cli/errors.ts";
import { prepareImport } from "../../engine/formats/mod.ts";
import { blobRefOf } from "../../engine/formats/mod.ts";
import { liftJson } from "../../engine/input/mod.ts";
import { realisticCapture } from "../_fixtures/realistic_capture.ts";

Deno.test("a capture with real-size inline hierarchies, read with its hierarchies lifted, gives the events and blobs of the whole-text reader", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const text = realisticCapture({ actions: 20 });
    const file = `${dir}/long.capture.json`;
    await Deno.writeTextFile(file, text);
    const lifted = await prepareFile(file, { sessionId: "s" });
    const whole = await prepareImport(text, {
      newSessionId: () => "s",
      file,
      readFile: () => Promise.reject(new Error("no files")),
    });
    assertEquals(lifted.format, "capture");
    assertEquals(lifted.sessions, whole.sessions);
    assertEquals(lifted.blobs.map((b) => blobRefOf(b)), whole.blobs.map((b) => blobRefOf(b)));
    assertEquals(lifted.derived!.length, 20);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a large capture's bad JSON, bad hierarchy or bad field is named as the whole-text reader names it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const text = realisticCapture({ actions: 5 });
    const cases: [string, string, RegExp][] = [
      ["a trailing comma", text.replace(/\}\s*$/, ",}"), /line \d+, column \d+/],
      [
        "a hierarchy that does not parse",
        text.replace("<hierarchy", "<hierarchy <"),
        /actions\.0\.viewHierarchy: /,
      ],
      ["a bad field", text.replace('"format"', '"formatt"'), /format/],
    ];
    for (const [what, bad, message] of cases) {
      assertEquals(bad !== text, true, what);
      const file = `${dir}/bad.capture.json`;
      await Deno.writeTextFile(file, bad);
      const err = await assertRejects(() => prepareFile(file), InputError);
      assertEquals(message.test(err.message), true, `${what}: ${err.message}`);
      assertEquals(err.message.startsWith(`${file}: `), true, err.message);
      assertEquals(err.message.includes("cairn-lifted"), false, err.message);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every capture and recording in the repository reads the same with its strings lifted as from its whole text", async () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) walk(path);
      else if (/\.json$/.test(e.name) && !/\.chrome\.json$/.test(e.name)) files.push(path);
    }
  };
  walk("examples");
  walk("tests/testdata");
  let compared = 0;
  for (const path of files.sort()) {
    const bytes = await Deno.readFile(path);
    const folder = path.replace(/\/[^/]*$/, "");
    const options = {
      newSessionId: () => "s",
      file: path,
      readFile: (p: string) => Deno.readFile(`${folder}/${p}`),
    };
    // what the whole-text reader makes of it; files it refuses are not this test's
    const whole = await prepareImport(new TextDecoder().decode(bytes), options).catch(() =>
      undefined
    );
    if (whole === undefined || whole.format === "events") continue;
    // every string of 16 bytes or more lifted: far more than a real file would lift
    const doc = liftJson(bytes, 16);
    if (doc === undefined) continue;
    const lifted = await prepareImport(doc, options);
    assertEquals(lifted.sessions, whole.sessions, path);
    assertEquals(lifted.blobs.map((b) => blobRefOf(b)), whole.blobs.map((b) => blobRefOf(b)), path);
    compared++;
  }
  assertEquals(compared >= 20, true, `only ${compared} files compared`);
});
