/**
 * `cairn appium` as a user runs it: a real `deno run main.ts appium …` process, the real
 * Appium server it starts, and its stop on SIGTERM.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

function cairn(args: string[]): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
  });
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("cairn appium status lists the installed UiAutomator2 driver", async () => {
  const out = await cairn(["appium", "status"]).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  assertStringIncludes(
    new TextDecoder().decode(out.stdout),
    "uiautomator2\t8.7.0\tUiAutomator2\tnpm",
  );
});

Deno.test("cairn appium with an unknown action exits 2 with one line", async () => {
  const out = await cairn(["appium", "launch"]).output();
  assertEquals(out.code, 2);
  const err = new TextDecoder().decode(out.stderr).trim();
  assertEquals(err.split("\n").length, 1, err);
  assertStringIncludes(err, "ACTION must be one of install, start, status");
});

Deno.test("cairn appium start serves /status until SIGTERM, then stops Appium", async () => {
  const port = freePort();
  const child = cairn(["appium", "start", "--port", String(port)]).spawn();
  const url = `http://127.0.0.1:${port}`;
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    const first = await reader.read(); // the URL, printed once Appium is ready
    assertEquals(first.value?.trim(), url);
    const res = await fetch(`${url}/status`);
    const body = await res.json() as { value: { ready: boolean } };
    assertEquals(body.value.ready, true);
    const status = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-q", "-A", MAIN, "appium", "status", "--appium", url],
      stdout: "piped",
      stderr: "null",
    }).output();
    assertStringIncludes(new TextDecoder().decode(status.stdout), '"ready":true');
  } finally {
    child.kill("SIGTERM");
    const done = await child.status;
    await reader.cancel();
    const err = await new Response(child.stderr).text();
    assert(done.success, `exit ${done.code}: ${err}`);
    assertStringIncludes(err, "appium: stopped");
  }
  const after = await fetch(`${url}/status`).then((r) => r.body?.cancel(), (e) => e);
  assert(after instanceof Error, "Appium still answers after cairn appium start stopped");
});
