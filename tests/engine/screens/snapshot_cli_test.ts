/** `cairn snapshot` end to end: the real CLI in a child process. */
import sharp from "sharp";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_fixtures/assert.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const DATA = new URL("../../testdata/snapshots/", import.meta.url).pathname;
const CORPUS = new URL("../../../../shared/corpus/", import.meta.url).pathname;

async function cairn(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, "snapshot", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

Deno.test("cairn snapshot FILE prints the same text as the golden", async () => {
  const r = await cairn(`${CORPUS}android/appium-source_theapp_login.xml`);
  assertEquals(r.code, 0, r.err);
  assertEquals(r.out, Deno.readTextFileSync(`${DATA}android_theapp_login.txt`));
});

Deno.test("cairn snapshot --root --depth --bounds --format narrows and details the output", async () => {
  const file = `${CORPUS}android/uiautomator_google_tasks_list.xml`;
  const r = await cairn(file, "--root", "x290", "--depth", "2", "--bounds", "--format", "android");
  assertEquals(r.code, 0, r.err);
  const alias = await cairn(
    file,
    "--ref",
    "x290",
    "--depth",
    "2",
    "--bounds",
    "--format",
    "android",
  );
  assertEquals(alias.out, r.out); // --ref, its first name, still works
  const both = await cairn(file, "--root", "x290", "--ref", "a1");
  assertEquals(both.code, 2);
  const lines = r.out.trimEnd().split("\n");
  assertMatch(
    lines[0]!,
    /^- RecyclerView \[scrollable\] \[ref=x290\] \{x:\d+,y:\d+,w:\d+,h:\d+\}:$/,
  );
  assert(
    lines.slice(1).every((l) =>
      /^ {2}- FrameLayout "Task \d+" \[clickable\] \[ref=[a-z]\d+\] \[\+2\] \{/.test(l)
    ),
    r.out,
  );
});

Deno.test("cairn snapshot exits 2 with one line naming the file for bad input", async () => {
  const bad = await Deno.makeTempFile({ suffix: ".xml" });
  try {
    await Deno.writeTextFile(bad, '<hierarchy>\n  <node bounds="[0,0][1,1]">\n</hierarchy>\n');
    const r = await cairn(bad);
    assertEquals(r.code, 2);
    assertEquals(r.err.trim().split("\n").length, 1);
    assertStringIncludes(r.err, `${bad}: Expected </node>`);
    assertStringIncludes(r.err, "line 3, column 1");
    const unknown = await cairn(
      `${CORPUS}android/uiautomator_system_anr_dialog.xml`,
      "--ref",
      "z999",
    );
    assertEquals(unknown.code, 2);
    assertStringIncludes(unknown.err, "Cannot render subtree z999");
    const lonely = await cairn(
      `${CORPUS}android/uiautomator_system_anr_dialog.xml`,
      "--marks",
      "x.png",
    );
    assertEquals(lonely.code, 2);
  } finally {
    await Deno.remove(bad);
  }
});

Deno.test("cairn snapshot --format ios or android refuses the other platform's XML, naming the file", async () => {
  const android = `${CORPUS}android/uiautomator_system_anr_dialog.xml`;
  const asIos = await cairn(android, "--format", "ios");
  assertEquals(asIos.code, 2, asIos.out);
  assertEquals(asIos.err.trim().split("\n").length, 1);
  assertStringIncludes(
    asIos.err,
    `${android}: Not XCUITest page source: the root element is <hierarchy>`,
  );
  const ios = `${CORPUS}ios/xcuitest-source_safari_iphone.xml`;
  const asAndroid = await cairn(ios, "--format", "android");
  assertEquals(asAndroid.code, 2, asAndroid.out);
  assertStringIncludes(asAndroid.err, `${ios}: Not UiAutomator XML`);
});

Deno.test("cairn snapshot refuses a box beyond the largest screen and a screen with no sized element", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/huge.xml`,
      '<hierarchy><node class="android.widget.Button" text="Go" bounds="[0,0][99999999999,100]"/></hierarchy>',
    );
    await Deno.writeTextFile(`${dir}/page.xml`, "<html><body><p>hello</p></body></html>");
    const huge = await cairn(`${dir}/huge.xml`);
    assertEquals(huge.code, 2, huge.out);
    assertStringIncludes(
      huge.err,
      `${dir}/huge.xml: element android.widget.Button "Go" has bounds beyond`,
    );
    const page = await cairn(`${dir}/page.xml`, "--format", "android");
    assertEquals(page.code, 2, page.out);
    assertEquals(page.err.trim().split("\n").length, 1);
    assertStringIncludes(page.err, `${dir}/page.xml: no element has a size`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn snapshot --diff says unchanged, or lists the differences", async () => {
  const a = `${CORPUS}android/uiautomator_wikipedia_search.xml`;
  const same = await cairn("--diff", a, a);
  assertEquals([same.code, same.out], [0, "unchanged\n"]);
  const text = await cairn(a);
  const dir = await Deno.makeTempDir();
  try {
    // a rendered snapshot on one side, with one line dropped
    const edited = text.out.split("\n").filter((_, i) => i !== 1).join("\n");
    await Deno.writeTextFile(`${dir}/b.txt`, edited);
    const d = await cairn("--diff", a, `${dir}/b.txt`);
    assertEquals(d.code, 0, d.err);
    const dropped = text.out.split("\n")[1]!.trim().replace(/^- /, "").replace(/:$/, "");
    assertEquals(d.out, `- ${dropped}\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn snapshot --marks writes a marked PNG of the screenshot's size", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await cairn(
      `${DATA}web_form.chrome.json`,
      "--marks",
      `${dir}/marked.png`,
      "--screenshot",
      `${DATA}web_form.png`,
    );
    assertEquals(r.code, 0, r.err);
    assertMatch(r.err, /wrote .*marked\.png \(\d+ marks\)/);
    const meta = await sharp(`${dir}/marked.png`).metadata();
    assertEquals([meta.format, meta.width, meta.height], ["png", 800, 600]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
