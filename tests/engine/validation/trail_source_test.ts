import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { parseTrail, stringifyTrail } from "../../../engine/trail/trail.ts";
import { editTrailSource } from "../../../engine/validation/trail_source.ts";
import { flagUnrecordable, withSelectors } from "../../../engine/validation/trail_edit.ts";

const SOURCE = `config:
  id: s-1
  platform: web
  url: http://127.0.0.1:8931/page.html
  memory:
    email: ann@example.com
# login flow, keep in sync with JIRA-123
trail:
  - step: Enter the email # typed, then submitted
    recording:
      - type:
          selector: { ariaLabel: Email }
          text: "\${email}"
      # the button's copy changes
      - click: "Login"
  - step: Add Fern
    recording:
      - click: { text: Add, index: 0 } # first row
  - step: Go back
    recording:
      - back
`;

Deno.test("editTrailSource() keeps the file as written when validation changed nothing", () => {
  const t = parseTrail(SOURCE);
  assertEquals(editTrailSource(SOURCE, t, t), SOURCE);
});

Deno.test("editTrailSource() replaces only the refined action: comments, bare kinds and the user's spelling survive", () => {
  const t = parseTrail(SOURCE);
  const final = withSelectors(t, 1, 0, [{ text: "Add", childOf: { text: "Fern" } }]);
  const out = editTrailSource(SOURCE, t, final);
  assertEquals(parseTrail(out), final);
  for (
    const kept of [
      "# login flow, keep in sync with JIRA-123",
      "# typed, then submitted",
      "# the button's copy changes",
      '      - click: "Login"',
      'text: "${email}"',
      "      - back\n",
      "# first row",
    ]
  ) assertStringIncludes(out, kept);
  assert(!out.includes("back: {}"), out);
  assert(!out.includes("index: 0"), out);
  assertStringIncludes(out, 'childOf:\n            text: "Fern"');
});

Deno.test("editTrailSource() writes a flagged step anew, the other steps and the config url as changed", () => {
  const t = parseTrail(SOURCE);
  const flagged = flagUnrecordable(t, [1]);
  const final = { ...flagged, config: { ...flagged.config, url: "http://127.0.0.1:9000/p.html" } };
  const out = editTrailSource(SOURCE, t, final);
  assertEquals(parseTrail(out), final);
  assertStringIncludes(out, "url: http://127.0.0.1:9000/p.html");
  assertStringIncludes(out, "  - step: Add Fern\n    recordable: false\n");
  assertStringIncludes(out, "      - back\n");
  assertStringIncludes(out, "# the button's copy changes");
});

Deno.test("editTrailSource() writes the trail anew when the file's steps no longer line up", () => {
  const t = parseTrail(SOURCE);
  const final = { ...t, trail: t.trail.slice(0, 2) };
  assertEquals(editTrailSource(SOURCE, t, final), stringifyTrail(final));
});
