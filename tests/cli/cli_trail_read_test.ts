/**
 * What `cairn replay` refuses when it reads a trail, before any browser starts (README,
 * "Trail format": "An action that could never run is refused when the trail is read"): a
 * template that can never parse or reads a key nothing sets, an invalid `textRegex`, a key the
 * web player does not know, an empty key or selector text, selector keys beside an action's own
 * fields, an unknown action field, `className` on the web, YAML that would exhaust the reader
 * (an alias bomb, deep nesting, an oversized file). Each is exit 2 and one stderr line naming
 * the file and the field (or line). Every child runs with `CAIRN_CHROMIUM` pointing at a binary
 * that does not exist, so a run that got past the reader fails with "Cannot launch Chromium"
 * (exit 1) instead; the control cases show that an equivalent good trail gets there.
 */
import { assert, assertEquals, assertMatch } from "../_fixtures/assert.ts";
import { cairn, type CliOutput, pool } from "../_fixtures/cli_run.ts";
import { escapeRegex } from "../../engine/trail/regex.ts";
import { planFromText } from "../../engine/playback/load_plan.ts";

const NO_BROWSER = "/nonexistent/cairn-test-chromium";
const HEAD = "config:\n  platform: web\n  url: http://127.0.0.1:9/page.html\ntrail:\n" +
  "  - step: s\n    recording:\n";

interface Case {
  name: string;
  /** The trail's text (HEAD + actions, or the whole file). */
  text: string;
  /** More arguments after the file. */
  args?: string[];
  /** What follows `FILE` on the stderr line; undefined: the run gets past the reader. */
  where?: RegExp;
}

/** `cairn replay FILE ARGS…` for each case, in its own temp dir, two at a time. */
async function replayAll(cases: readonly Case[]): Promise<{ path: string; out: CliOutput }[]> {
  return await pool(cases, 2, async (c) => {
    const dir = await Deno.makeTempDir({ prefix: "cairn_trail_read_" });
    try {
      const path = `${dir}/t.trail.yaml`;
      await Deno.writeTextFile(path, c.text);
      const out = await cairn(
        ["replay", path, "--db", `${dir}/c.db`, "--screenshots", `${dir}/shots`, ...(c.args ?? [])],
        { CAIRN_CHROMIUM: NO_BROWSER },
      );
      return { path, out };
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/** Runs the cases: each refused (exit 2, one line naming file and field) or past the reader. */
async function check(cases: readonly Case[]): Promise<void> {
  const runs = await replayAll(cases);
  cases.forEach((c, i) => {
    const { path, out } = runs[i]!;
    const shown = `${c.name}: exit ${out.code}\nstderr: ${JSON.stringify(out.stderr)}`;
    if (!c.where) {
      // got past the reader: the browser launch fails
      assertEquals(out.code, 1, shown);
      assertMatch(out.stderr, /Chromium/i, shown);
      return;
    }
    assertEquals(out.code, 2, shown);
    assertEquals(out.stdout, "", shown);
    const lines = out.stderr.split("\n");
    assertEquals(lines.length, 2, `expected exactly one stderr line; ${shown}`);
    assert(!/cannot launch/i.test(lines[0]!), `a browser launch was attempted; ${shown}`);
    assertMatch(
      lines[0]!,
      new RegExp(`^cairn replay: ${escapeRegex(path)}${c.where.source}`),
      shown,
    );
  });
}

Deno.test("replay: templates, regexes, keys and empty selector texts that could never run are refused when read", async () => {
  await check([
    {
      name: "a template reading a key nothing sets",
      text: HEAD + '      - click: { id: email }\n      - type: "hi {{nosuch}} there"\n',
      where: /: trail\.0\.recording\.1\.type\.text: reads \{\{nosuch\}\}, which nothing sets/,
    },
    {
      name: "control: the same key given by --memory",
      text: HEAD + '      - click: { id: email }\n      - type: "hi {{nosuch}} there"\n',
      args: ["--memory", "nosuch=x"],
    },
    {
      name: "control: a key an earlier action stores, and one config.memory declares null",
      text:
        "config:\n  platform: web\n  url: http://127.0.0.1:9/p.html\n  memory:\n    pin: null\n" +
        "trail:\n  - step: s\n    recording:\n" +
        "      - readText: { selector: { id: q }, storeAs: qty }\n" +
        '      - assertText: { selector: { id: q }, equals: "{{qty + 1}}" }\n' +
        '      - type: "{{pin}}"\n',
      args: ["--memory", "pin=1"],
    },
    {
      name: "a key read before the action that stores it",
      text: HEAD + '      - assertText: { selector: { id: q }, equals: "{{qty}}" }\n' +
        "      - readText: { selector: { id: q }, storeAs: qty }\n",
      where: /: trail\.0\.recording\.0\.assertText\.equals: reads \{\{qty\}\}/,
    },
    {
      name: "a template syntax error",
      text: HEAD + '      - assertText: { selector: { id: out }, equals: "{{1 +}}" }\n',
      where: /: trail\.0\.recording\.0\.assertText\.equals: Unexpected end of expression/,
    },
    {
      name: "an unclosed {{",
      text: HEAD + '      - type: { selector: { id: pw }, text: "literal {{ not closed" }\n',
      where: /: trail\.0\.recording\.0\.type\.text: Unclosed "\{\{" at column 9 .*\{\{'\{\{'\}\}/,
    },
    {
      name: "control: a literal {{ written {{'{{'}}",
      text: HEAD + "      - type: { selector: { id: pw }, text: \"literal {{'{{'}} closed\" }\n",
    },
    {
      name: "an invalid textRegex",
      text: HEAD + '      - click: { textRegex: "([" }\n',
      where: /: trail\.0\.recording\.0\.click\.selector\.textRegex: invalid regular expression/,
    },
    {
      name: "an invalid textRegex in a childOf of a fallback",
      text: HEAD +
        '      - click: { selectors: [{ id: a }, { text: b, childOf: { textRegex: "(" } }] }\n',
      where: /: trail\.0\.recording\.0\.click\.selectors\.1\.childOf\.textRegex: invalid/,
    },
    {
      name: "a key name the web player does not know",
      text: HEAD + '      - keyPress: "Ctrl+a"\n',
      where:
        /: trail\.0\.recording\.0\.keyPress\.key: unknown key "Ctrl": did you mean "Control"\?/,
    },
    {
      name: "control: a chord of known keys",
      text: HEAD + '      - keyPress: "Control+Shift+ArrowLeft"\n      - keyPress: "Shift++"\n',
    },
    {
      name: "an empty key",
      text: HEAD + '      - keyPress: ""\n',
      where: /: trail\.0\.recording\.0\.keyPress\.key: needs a key/,
    },
    {
      name: "an empty selector text",
      text: HEAD + '      - click: { text: "" }\n',
      where: /: trail\.0\.recording\.0\.click\.selector\.text: empty/,
    },
  ]);
});

Deno.test("replay: selector keys beside an action's own fields say to put them under selector:, and an unknown field is named", async () => {
  await check([
    {
      name: "a bare selector with repeat",
      text: HEAD + "      - tap: { id: inc, repeat: 3 }\n",
      where:
        /: trail\.0\.recording\.0\.tap: put the selector keys \(id\) under "selector:" when the action has its own fields \(repeat\): tap: \{ selector: \{ id: "inc" \}, repeat: 3 \}$/,
    },
    {
      name: "control: the same under selector:",
      text: HEAD + "      - tap: { selector: { id: inc }, repeat: 3 }\n",
    },
    {
      name: "a field Cairn does not have",
      text: HEAD + "      - click: { id: login, optional: true }\n",
      where: /: trail\.0\.recording\.0\.click\.optional: not a field of an action \(/,
    },
    {
      name: "an input's selector beside its text",
      text: HEAD + '      - type: { id: email, text: "hi" }\n',
      where: /: trail\.0\.recording\.0\.type: put the selector keys \(id\) under "selector:"/,
    },
  ]);
});

Deno.test("replay: YAML that would exhaust the reader is refused with one line naming the file", async () => {
  const laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" +
    [..."bcdefghij"].map((n, i) =>
      `${n}: &${n} [${Array(10).fill(`*${"abcdefghij"[i]}`).join(", ")}]\n`
    )
      .join("") +
    "config: {}\ntrail: []\n";
  const steps = "  - step: s\n    recording:\n      - click: { id: inc }\n";
  const big = "config:\n  platform: web\ntrail:\n" +
    steps.repeat(Math.ceil((1024 * 1024) / steps.length) + 1);
  await check([
    { name: "an alias bomb", text: laughs, where: /: YAML aliases expand too far/ },
    {
      name: "deep flow nesting",
      text: "config: {}\ntrail: []\nx: " + "[".repeat(20000) + "]".repeat(20000) + "\n",
      where: /:3:\d+: nesting deeper than 64 levels$/,
    },
    {
      name: "a deep childOf chain",
      text: HEAD + "      - click: " + "{ childOf: ".repeat(3000) + "{ id: x }" +
        " }".repeat(3000) + "\n",
      where: /:7:\d+: nesting deeper than 64 levels$/,
    },
    {
      name: "a childOf chain 70 deep (within what the YAML library reads)",
      text: HEAD + "      - click: " + "{ childOf: ".repeat(70) + "{ id: x }" + " }".repeat(70) +
        "\n",
      where: /:7:\d+: nesting deeper than 64 levels$/,
    },
    {
      name: "control: a childOf chain 20 deep",
      text: HEAD + "      - click: " + "{ id: y, childOf: ".repeat(20) + "{ id: x }" +
        " }".repeat(20) + "\n",
    },
    {
      name: "a trail over 1 MiB",
      text: big,
      where: /: \d+ characters: a trail is at most 1,048,576 \(1 MiB\)/,
    },
  ]);
});

Deno.test("replay: a relative navigate is resolved against config.url, as Playwright's baseURL", async () => {
  const rel = "config:\n  platform: web\n  url: http://127.0.0.1:9/app/page.html\ntrail:\n" +
    '  - step: s\n    recording:\n      - navigate: "page2.html"\n      - navigate: "/root.html?q=1"\n';
  const plan = await planFromText(rel, { file: "rel.yaml" });
  assertEquals(
    plan.actions.filter((a) => a.type === "navigate" && !a.added).map((a) => a.url),
    ["http://127.0.0.1:9/app/page2.html", "http://127.0.0.1:9/root.html?q=1"],
  );
  await check([
    { name: "a relative navigate with config.url", text: rel },
    {
      name: "a relative navigate with neither config.url nor --url",
      text: "config:\n  platform: web\ntrail:\n  - step: s\n    recording:\n" +
        '      - navigate: "page2.html"\n',
      where: /: action 0 navigates to "page2\.html", which is not a url.*pass --url/,
    },
  ]);
});
