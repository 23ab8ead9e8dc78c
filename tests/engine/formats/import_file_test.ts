import { assertEquals, assertRejects, assertThrows } from "../../_fixtures/assert.ts";
import { looksLikeChromeRecorder } from "../../../engine/formats/chrome_recorder.ts";
import { FormatError } from "../../../engine/input/format_error.ts";
import { detectImportFormat, prepareImport } from "../../../engine/formats/import_file.ts";

const MAP = new URL(
  "../../../../shared/corpus/chrome-recorder/devtools-frontend_recorder_test_snapshots.json",
  import.meta.url,
).pathname;

/** DevTools' map of 35 flows by test name, with its first flow changed by `edit`. */
async function mapWithBadFlow(edit: (flow: Record<string, unknown>) => unknown): Promise<string> {
  const map = JSON.parse(await Deno.readTextFile(MAP)) as Record<string, Record<string, unknown>>;
  const first = Object.keys(map)[0]!;
  map[first] = edit(map[first]!) as Record<string, unknown>;
  return JSON.stringify(map, null, 2);
}

const options = {
  newSessionId: () => crypto.randomUUID(),
  readFile: () => Promise.reject(new Error("no files")),
};
const FIRST = "Recorder should capture the initial page as the url of the first section - 1";

Deno.test("detectImportFormat() takes a DevTools map of flows with one bad flow as a map, and prepareImport() names that flow", async () => {
  const cases: [string, (flow: Record<string, unknown>) => unknown, string][] = [
    [
      "a flow replaced by a string",
      () => "not a flow",
      `"${FIRST}": Invalid input: expected object, received string`,
    ],
    [
      "a flow without steps",
      ({ steps: _, ...rest }) => rest,
      `"${FIRST}".steps: Invalid input: expected array`,
    ],
  ];
  for (const [name, edit, message] of cases) {
    const text = await mapWithBadFlow(edit);
    assertEquals(detectImportFormat(text).format, "chrome-recorder", name);
    const err = await assertRejects(() => prepareImport(text, options), FormatError, message);
    assertEquals(err.message.includes("unknown format"), false, name);
    // forced, the same message
    await assertRejects(
      () => prepareImport(text, { ...options, format: "chrome-recorder" }),
      FormatError,
      message,
    );
  }
  // a whole good map still reads as 35 sessions
  const good = await prepareImport(await Deno.readTextFile(MAP), options);
  assertEquals(good.sessions.length, 35);
});

Deno.test("looksLikeChromeRecorder() takes a map with a flow among other values, not a map without any", () => {
  assertEquals(looksLikeChromeRecorder({ a: { steps: [] }, b: "x" }), true);
  assertEquals(looksLikeChromeRecorder({ a: { title: "no steps" }, b: "x" }), false);
  assertEquals(looksLikeChromeRecorder({}), false);
});

Deno.test("prepareImport() --format chrome-recorder refuses an empty object, naming it, rather than storing nothing", async () => {
  await assertRejects(
    () => prepareImport("{}", { ...options, format: "chrome-recorder" }),
    FormatError,
    "(root): expected a Chrome Recorder flow with steps, a step, or a map of flows by name; got an empty object",
  );
  assertThrows(() => detectImportFormat("{}"), FormatError, "unknown format");
});
