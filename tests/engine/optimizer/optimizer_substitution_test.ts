import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { interpolateValues, reverseSubstitute } from "../../../engine/optimizer/substitution.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { makeNode, type Screen } from "../../../engine/screens/ui_node.ts";
import { buildCapture } from "../../_fixtures/optimizer_support.ts";

const EMAIL = "trailblaze+merchant.coffee-shop.abc123@example.com";

Deno.test("reverseSubstitute() substitutes an exact value of 8+ characters", () => {
  assertEquals(reverseSubstitute(EMAIL, { merchant_email: EMAIL }).key, "merchant_email");
});

Deno.test("reverseSubstitute() leaves a short value alone unless a provisioning tool wrote it", () => {
  const memory = { country: "US", pin: "4821" };
  assertEquals(
    reverseSubstitute("US", memory, { writtenBy: { country: "memory.set" } }).key,
    undefined,
  );
  assertEquals(reverseSubstitute("4821", memory).key, undefined);
  assertEquals(
    reverseSubstitute("4821", memory, { writtenBy: { pin: "merchantFactory_loadAccount" } }).key,
    "pin",
  );
  assertEquals(
    reverseSubstitute("US", memory, { writtenBy: { country: "rememberWithAi" } }).key,
    "country",
  );
});

Deno.test("reverseSubstitute() never substitutes a substring of a longer parameter", () => {
  const s = reverseSubstitute(`Signed in as ${EMAIL}`, { merchant_email: EMAIL });
  assertEquals(s.key, undefined);
  assertStringIncludes(s.rejected.join(), "only a substring");
});

Deno.test("reverseSubstitute() resolves one value under two keys deterministically", () => {
  const memory = { zeta_token: "ML4XV8YWNMESK", alpha_token: "ML4XV8YWNMESK" };
  assertEquals(reverseSubstitute("ML4XV8YWNMESK", memory).key, "alpha_token");
  const reversed = { alpha_token: "ML4XV8YWNMESK", zeta_token: "ML4XV8YWNMESK" };
  assertEquals(reverseSubstitute("ML4XV8YWNMESK", reversed).key, "alpha_token");
  const provisioned = reverseSubstitute("ML4XV8YWNMESK", memory, {
    writtenBy: { zeta_token: "merchantFactory_loadAccount" },
  });
  assertEquals(provisioned.key, "zeta_token");
  assertStringIncludes(provisioned.rejected.join(), "alpha_token: holds the same value");
});

Deno.test("reverseSubstitute() tries the longest value first and ignores empty values", () => {
  const memory = { short: "abc12345", long: "abc12345-extended", empty: "" };
  assertEquals(reverseSubstitute("abc12345-extended", memory).key, "long");
  assertEquals(reverseSubstitute("", memory).key, undefined);
});

Deno.test("reverseSubstitute() and interpolateValues() never match a [redacted] value", () => {
  // two secrets look the same once redacted: neither is known to be the one typed
  const memory = { pin: "[redacted]", pw: "[redacted]", note: "two coffees and a tea" };
  const typed = reverseSubstitute("[redacted]", memory, { writtenBy: { pin: "config" } });
  assertEquals(typed, { rejected: [] });
  assertEquals(reverseSubstitute("[redacted] ok", memory).rejected, []);
  assertEquals(interpolateValues("PIN [redacted] accepted", memory).template, undefined);
  assertEquals(
    interpolateValues("Noted: two coffees and a tea [redacted]", memory).template,
    "Noted: {{note}} [redacted]",
  );
});

function loginScreen(password: boolean): Screen {
  const root = makeNode({
    className: "android.widget.FrameLayout",
    bounds: { x: 0, y: 0, w: 1080, h: 2400 },
    children: [
      makeNode({
        className: "android.widget.EditText",
        resourceId: "code-input",
        focused: true,
        password,
        clickable: true,
        bounds: { x: 0, y: 100, w: 1080, h: 100 },
      }),
      makeNode({
        className: "android.widget.Button",
        resourceId: "go",
        text: "Go",
        clickable: true,
        bounds: { x: 0, y: 300, w: 1080, h: 100 },
      }),
    ],
  });
  return { platform: "android", format: "uiautomator2", root, width: 1080, height: 2400 };
}

Deno.test("projectTrail() templates a typed value written by a provisioning tool after the call", () => {
  const screen = loginScreen(false);
  const { events, screens } = buildCapture("android", [
    {
      step: "Enter the store code",
      screen,
      kind: "inputText",
      text: "4821",
      memory: { store_code: "4821", country: "US" },
      writtenBy: { store_code: "merchantFactory_loadAccount", country: "memory.set" },
    },
  ]);
  const p = projectTrail(events, { screens });
  assertStringIncludes(p.yaml, 'inputText: "{{store_code}}"');
  assertStringIncludes(p.yaml, 'store_code: "4821"');
});

Deno.test("projectTrail() never writes a password field's value: its slot has no default", () => {
  const { events, screens } = buildCapture("android", [
    { step: "Enter the secret", screen: loginScreen(true), kind: "inputText", text: "hunter22" },
  ]);
  const p = projectTrail(events, { screens });
  assertEquals(p.yaml.includes("hunter22"), false);
  assertStringIncludes(p.yaml, "password: null");
  assertStringIncludes(p.yaml, 'inputText: "{{password}}"');
});

Deno.test("projectTrail() keeps a short memory value literal when no provisioning tool wrote it", () => {
  const { events, screens } = buildCapture("android", [
    {
      step: "Enter the country",
      screen: loginScreen(false),
      kind: "inputText",
      text: "US",
      memory: { country: "US" },
      writtenBy: { country: "memory.set" },
    },
  ]);
  const p = projectTrail(events, { screens });
  assertEquals(p.yaml.includes("{{country}}"), false);
  assertStringIncludes(p.explain[0]!.lines.join("\n"), "country: value shorter than 8");
});
