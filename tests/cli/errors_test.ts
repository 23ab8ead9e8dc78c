import { describeError, exitCodeOf, InputError } from "../../cli/errors.ts";
import { UsageError } from "../../cli/args.ts";
import { assertEquals } from "../_fixtures/assert.ts";

Deno.test("describeError() puts the file first in a Deno file-system error, one line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_err_" });
  try {
    const path = `${dir}/missing/x.json`;
    const err = await Deno.writeTextFile(path, "{}").then(() => null, (e: unknown) => e);
    assertEquals(describeError(err), `${path}: no such file or directory`);
    assertEquals(exitCodeOf(err), 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("describeError() keeps other messages whole on one line; exit 2 for bad input", () => {
  assertEquals(describeError(new Error("two\nlines")), "two lines");
  assertEquals(describeError("plain"), "plain");
  assertEquals(exitCodeOf(new InputError("f.json: 1:2: bad")), 2);
  assertEquals(exitCodeOf(new UsageError("x: --y")), 2);
});
