/**
 * The ingest fuzzer: mutants of every format `cairn ingest` reads (capture v1, recording_v1,
 * Chrome Recorder JSON, Cairn's events export), file references to devices, FIFOs, symbolic
 * links and paths outside the capture's folder among them, each read and stored as the command
 * does into a real SQLite file. A mutant must be stored whole or refused as bad input
 * (`InputError`, exit 2) leaving the log unchanged, within a time bound. Counts crashes (any
 * other error), hangs and partial appends; a bounded short run is part of the tests
 * (`tests/security/security_fuzz_test.ts`).
 *
 *     deno run -A scripts/fuzz_ingest.ts [--per-format 500] [--seed 1]
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { checkExternalBlobs, prepareFile, storePrepared } from "../cli/ingest.ts";
import { InputError } from "../cli/errors.ts";
import { withDeadline } from "../drivers/with_deadline.ts";
import { mutateJson, mutateText, Prng } from "./_fuzz_mutate.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** The seeds of each format: files (a capture's referenced folder is copied with it). */
const SEEDS: Record<string, string[]> = {
  capture: ["examples/web_checkout.capture.json", "tests/testdata/formats/bottom_nav.capture.json"],
  recording_v1: [
    "tests/testdata/formats/vw-ax-agent-trace-7f3c-20251219-120000.json",
    "tests/testdata/formats/vw-ax-human-hs-0042-20251219-130500.json",
  ],
  "chrome-recorder": [
    "/work/shared/corpus/chrome-recorder/catchpoint_singlestep.json",
    "/work/shared/corpus/chrome-recorder/catchpoint_walmart-product.json",
  ],
  events: [
    "tests/testdata/formats/blaze_dialogs.events.jsonl",
    "tests/testdata/formats/blaze_unended.events.jsonl",
  ],
};

/** What one run found. */
export interface IngestFuzzSummary {
  mutants: Record<string, number>;
  stored: number;
  refused: number;
  crashes: { format: string; mutant: number; error: string }[];
  hangs: number;
  partialAppends: number;
}

/** How long one mutant may take to read and store. */
const MUTANT_MS = 15_000;

/**
 * Runs the fuzzer.
 *
 * @param options mutants per format, the PRNG seed
 * @returns the counts
 */
export async function fuzzIngest(
  options: { perFormat?: number; seed?: number } = {},
): Promise<IngestFuzzSummary> {
  const perFormat = options.perFormat ?? 500;
  const r = new Prng(options.seed ?? 1);
  const tmp = await Deno.makeTempDir({ prefix: "cairn-fuzz-ingest-" });
  const work = join(tmp, "work");
  await Deno.mkdir(join(work, "screens"), { recursive: true });
  await Deno.writeTextFile(join(tmp, "outside.xml"), "<hierarchy/>");
  await Deno.symlink("/dev/zero", join(work, "zero.xml"));
  await Deno.symlink("/dev/zero", join(work, "zero.png"));
  for (const f of ["pipe.xml", "pipe.png"]) {
    await new Deno.Command("mkfifo", { args: [join(work, f)] }).output();
  }
  const refs = [
    "/dev/zero",
    "/dev/urandom",
    "pipe.xml",
    "pipe.png",
    "zero.xml",
    "zero.png",
    "../../../../../../etc/passwd",
    "/proc/self/environ",
    "/etc/hostname",
    "../outside.xml",
    ".",
    "screens",
    "nosuch.xml",
  ];
  const summary: IngestFuzzSummary = {
    mutants: {},
    stored: 0,
    refused: 0,
    crashes: [],
    hangs: 0,
    partialAppends: 0,
  };
  const store = SqliteEventStore.open(join(tmp, "cairn.db"));
  try {
    for (const [format, seeds] of Object.entries(SEEDS)) {
      const texts: { name: string; text: string }[] = [];
      for (const s of seeds) {
        const path = s.startsWith("/") ? s : join(ROOT, s);
        texts.push({ name: basename(path), text: await Deno.readTextFile(path) });
        // a capture's referenced files come along (its folder of the same name)
        const folder = join(dirname(path), basename(path).replace(/\.capture\.json$/, ""));
        if (format === "capture") {
          await copyTree(folder, join(work, basename(folder))).catch(() => {});
          await copyTree(join(dirname(path), "screens"), join(work, "screens")).catch(() => {});
        }
      }
      summary.mutants[format] = 0;
      for (let i = 0; i < perFormat; i++) {
        const seed = texts[i % texts.length]!;
        const text = format === "events"
          ? mutateLines(r, seed.text, refs)
          : mutateSeed(r, seed.text, refs);
        const file = join(work, `m${i}.${format === "events" ? "jsonl" : "json"}`);
        await Deno.writeTextFile(file, text);
        summary.mutants[format]!++;
        const before = await store.headPosition();
        let outcome: "stored" | "refused" | "hang";
        try {
          outcome = await withDeadline(
            (async () => {
              const prepared = await prepareFile(file);
              await checkExternalBlobs(store, prepared);
              const result = await storePrepared(store, prepared);
              const total = prepared.sessions.reduce((n, s) => n + s.events.length, 0);
              const appended = (await store.headPosition()) - before;
              if (appended !== total) summary.partialAppends++;
              void result;
              return "stored" as const;
            })(),
            MUTANT_MS,
            () => new HangError(),
          );
        } catch (err) {
          if (err instanceof HangError) outcome = "hang";
          else if (err instanceof InputError) outcome = "refused";
          else {
            summary.crashes.push({
              format,
              mutant: i,
              error: err instanceof Error
                ? `${err.name}: ${err.message}`.slice(0, 300)
                : String(err),
            });
            outcome = "refused";
          }
          if ((await store.headPosition()) !== before) summary.partialAppends++;
        }
        if (outcome === "stored") summary.stored++;
        else if (outcome === "hang") summary.hangs++;
        else summary.refused++;
        await Deno.remove(file).catch(() => {});
      }
    }
  } finally {
    store.close();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  return summary;
}

class HangError extends Error {}

function mutateSeed(r: Prng, text: string, refs: readonly string[]): string {
  if (r.next() < 0.1) return mutateText(r, text);
  return mutateJson(r, JSON.parse(text), refs);
}

/** An events file: one line mutated (or the text), the rest kept. */
function mutateLines(r: Prng, text: string, refs: readonly string[]): string {
  if (r.next() < 0.15) return mutateText(r, text);
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const at = r.int(lines.length);
  lines[at] = mutateJson(r, JSON.parse(lines[at]!), refs);
  if (r.next() < 0.1) lines.splice(r.int(lines.length), 1);
  return lines.join("\n") + "\n";
}

async function copyTree(from: string, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (!info.isDirectory) return;
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(join(from, e.name), join(to, e.name));
    else if (e.isFile) await Deno.copyFile(join(from, e.name), join(to, e.name));
  }
}

if (import.meta.main) {
  const arg = (name: string, fallback: number) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
  };
  const started = performance.now();
  const s = await fuzzIngest({ perFormat: arg("per-format", 500), seed: arg("seed", 1) });
  console.log(
    JSON.stringify({ ...s, seconds: Math.round((performance.now() - started) / 1000) }, null, 2),
  );
  Deno.exit(s.crashes.length + s.hangs + s.partialAppends === 0 ? 0 : 1);
}
