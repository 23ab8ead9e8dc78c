/**
 * Bad capture content at the CLI as a user meets it: a point outside the real screen it was
 * made on (corpus dumps), an action that needs a screen and has none, and an empty capture.
 * Each refusal is exit code 2 with one line naming the file and the field; nothing is stored.
 */
import { assert, assertEquals, assertMatch } from "../_fixtures/assert.ts";
import { cairn, ROOT } from "../_fixtures/cli_run.ts";

const LOGIN = `${ROOT}../shared/corpus/android/uiautomator_wdio_demo_reactnative_login.xml`;

async function captureFile(dir: string, actions: unknown[]): Promise<string> {
  const path = `${dir}/capture.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({ format: "cairn.capture/v1", platform: "android", actions }),
  );
  return path;
}

async function dbSize(db: string): Promise<number> {
  try {
    return (await Deno.stat(db)).size;
  } catch {
    return 0;
  }
}

for (
  const [name, point, field] of [
    ["far beyond the screen", { x: 5000, y: 9000 }, "actions.1.coordinates"],
    ["at negative coordinates", { x: -200, y: 40 }, "actions.1.coordinates"],
  ] as const
) {
  Deno.test(`cairn optimize refuses a tap ${name} of a real 1080×2424 screen, naming the field`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      const xml = await Deno.readTextFile(LOGIN);
      const file = await captureFile(dir, [
        { action: "tap", coordinates: { x: 400, y: 590 }, viewHierarchy: xml, nlStep: "Open" },
        { action: "tap", coordinates: point },
      ]);
      const db = `${dir}/c.db`;
      for (const cmd of [["optimize", file], ["ingest", file]]) {
        const r = await cairn([...cmd, "--db", db]);
        assertEquals(r.code, 2, r.stderr);
        const lines = r.stderr.trim().split("\n");
        assertEquals(lines.length, 1, r.stderr);
        assertMatch(
          lines[0]!,
          new RegExp(
            `capture\\.json: ${
              field.replaceAll(".", "\\.")
            }: \\(${point.x}, ${point.y}\\) is outside the 1080×2424 screen`,
          ),
        );
      }
      const ok = await cairn([
        "ingest",
        await captureFile(dir, [
          { action: "tap", coordinates: { x: 400, y: 590 }, viewHierarchy: xml },
          { action: "tap", coordinates: { x: 1090, y: 2430 } }, // within the edge tolerance
        ]),
        "--db",
        db,
      ]);
      assertEquals(ok.code, 0, ok.stderr);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("cairn ingest refuses a tap with no screen captured at or before it, naming the field", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const xml = await Deno.readTextFile(LOGIN);
    const file = await captureFile(dir, [
      { action: "tap", coordinates: { x: 400, y: 590 } },
      { action: "tap", coordinates: { x: 400, y: 590 }, viewHierarchy: xml },
    ]);
    const db = `${dir}/c.db`;
    const r = await cairn(["ingest", file, "--db", db]);
    assertEquals(r.code, 2, r.stderr);
    assertMatch(
      r.stderr.trim(),
      /capture\.json: actions\.0\.viewHierarchy: a tap at \(400, 590\) needs the screen it was made on/,
    );
    assertEquals(r.stderr.trim().split("\n").length, 1);
    assertEquals(await dbSize(db), 0, "nothing stored, no database made");
    // a target naming the element needs no screen
    const named = await captureFile(dir, [
      { action: "tap", coordinates: { x: 400, y: 590 }, runtimeSelector: { text: "Login" } },
    ]);
    assertEquals((await cairn(["ingest", named, "--db", db])).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn optimize warns that an empty capture makes an empty trail (exit 0)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = await captureFile(dir, []);
    const r = await cairn(["optimize", file, "--db", `${dir}/c.db`]);
    assertEquals(r.code, 0, r.stderr);
    assertMatch(r.stdout, /trail: \[\]/);
    assert(
      r.stderr.includes("warning: the capture holds no action: the trail has no step to replay"),
      r.stderr,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
