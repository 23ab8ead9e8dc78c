import { serveConfig } from "../../cli/serve.ts";
import { isLoopback } from "../../api/app.ts";
import { parseArgs, UsageError } from "../../cli/args.ts";
import { spec } from "../../cli/serve.ts";
import { InputError } from "../../cli/errors.ts";
import { assertEquals, assertStringIncludes, assertThrows } from "../_fixtures/assert.ts";
import { startServe } from "../_fixtures/cli_run.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

Deno.test("isLoopback() accepts only loopback addresses", () => {
  const cases: [string, boolean][] = [
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["192.168.1.4", false],
    ["::", false],
    ["127.0.0.1.evil.com", false],
  ];
  for (const [host, want] of cases) assertEquals(isLoopback(host), want, host);
});

Deno.test("serveConfig() refuses a non-loopback host without CAIRN_TOKEN", () => {
  const args = parseArgs(spec, ["--host", "0.0.0.0"]);
  assertThrows(() => serveConfig(args, () => undefined), InputError, "CAIRN_TOKEN");
  const ok = serveConfig(args, (n) => (n === "CAIRN_TOKEN" ? "t0k" : undefined));
  assertEquals(ok, { host: "0.0.0.0", port: 8787, bodyLimit: 16 * 1024 * 1024, token: "t0k" });
});

Deno.test("serve's spec takes --body-limit and refuses one outside 1 byte..1 GiB or a port outside 0..65535", () => {
  const env = () => undefined;
  assertEquals(serveConfig(parseArgs(spec, ["--body-limit", "4096"]), env).bodyLimit, 4096);
  assertEquals(serveConfig(parseArgs(spec, ["--port", "0"]), env).port, 0);
  assertEquals(serveConfig(parseArgs(spec, ["--port", "65535"]), env).port, 65535);
  const bad: [string[], string][] = [
    [["--body-limit", "0"], 'serve: --body-limit must be an integer from 1 to 1073741824, got "0"'],
    [
      ["--body-limit", "1073741825"],
      'serve: --body-limit must be an integer from 1 to 1073741824, got "1073741825"',
    ],
    [["--port", "70000"], 'serve: --port must be an integer from 0 to 65535, got "70000"'],
    [["--port", "-1"], 'serve: --port must be an integer from 0 to 65535, got "-1"'],
  ];
  for (const [argv, message] of bad) assertThrows(() => parseArgs(spec, argv), UsageError, message);
});

Deno.test("cairn serve starts on 127.0.0.1, answers, keeps --body-limit, and stops on SIGTERM", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_" });
  const { child, url, stderr } = await startServe(["--body-limit", "4096", "--db", `${dir}/c.db`]);
  try {
    const res = await fetch(`${url}/openapi.json`);
    assertEquals(res.status, 200);
    assertEquals((await res.json()).openapi, "3.1.0");
    const append = (text: string) =>
      fetch(`${url}/v1/streams/notes-a/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ events: [{ type: "StepStarted", data: { index: 0, text } }] }),
      });
    const big = await append("x".repeat(5000));
    assertEquals(big.status, 413);
    assertEquals((await big.json()).error.code, "payload_too_large");
    const small = await append("fits");
    assertEquals(small.status, 201);
    assertEquals((await small.json()).positions, [1]);
    child.kill("SIGTERM");
    assertEquals((await child.status).code, 0);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* ended */ }
    await stderr;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn serve --host 0.0.0.0 without CAIRN_TOKEN exits 2 with one line", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", "--no-check", MAIN, "serve", "--host", "0.0.0.0", "--db", ":memory:"],
    env: { CAIRN_TOKEN: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 2);
  const err = new TextDecoder().decode(out.stderr).trim();
  assertStringIncludes(err, "refusing to bind 0.0.0.0");
  assertEquals(err.split("\n").length, 1);
});

Deno.test("serveConfig() refuses a CAIRN_TOKEN of whitespace, or with whitespace around it, which no client can send", () => {
  const args = parseArgs(spec, []);
  for (const token of ["   ", "\t", " s3cret", "s3cret "]) {
    assertThrows(() => serveConfig(args, () => token), InputError, "CAIRN_TOKEN");
  }
  assertEquals(serveConfig(args, () => "").token, undefined);
});

Deno.test("cairn serve with CAIRN_TOKEN='   ' exits 2 with one line instead of starting", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", "--no-check", MAIN, "serve", "--port", "0", "--db", ":memory:"],
    env: { CAIRN_TOKEN: "   " },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000), // a server that started is killed, and the test fails
  }).output();
  assertEquals(out.code, 2, new TextDecoder().decode(out.stdout));
  const err = new TextDecoder().decode(out.stderr).trim();
  assertStringIncludes(err, "CAIRN_TOKEN is only whitespace");
  assertEquals(err.split("\n").length, 1);
});

Deno.test("cairn serve on a port in use says which port (exit 2), as record does", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_port_" });
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (taken.addr as Deno.NetAddr).port;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-q", "-A", MAIN, "serve", "--port", String(port), "--db", `${dir}/c.db`],
      env: { NO_COLOR: "1", CAIRN_TOKEN: "" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(
      [out.code, stderr],
      [2, `cairn serve: --port: port ${port} on 127.0.0.1 is in use\n`],
    );
  } finally {
    taken.close();
    await Deno.remove(dir, { recursive: true });
  }
});
