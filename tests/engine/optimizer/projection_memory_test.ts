/**
 * A projection holds a few decoded screens at a time, not every screen of the capture: its passes
 * may ask for a screen again after it was dropped, and get the same trail. Checked on every capture
 * in the repository and the corpus (a screen read afresh at every ask, tables dropped after each
 * use), and on a long real-size capture in a real SQLite store.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { loadCaptureFile, loadEventsFile } from "../../_fixtures/optimizer_support.ts";
import { realisticCapture } from "../../_fixtures/realistic_capture.ts";
import { projectSessionTrail, projectTrail, SCREENS_HELD } from "../../../engine/optimizer/mod.ts";
import { RecentMap, type Screen, type ScreenTable } from "../../../engine/screens/mod.ts";
import { SqliteEventStore } from "../../../events/mod.ts";
import { ingestFile } from "../../../cli/ingest.ts";
import { DatabaseSync } from "node:sqlite";

const ROOT = new URL("../../../", import.meta.url).pathname;

/** A screens map whose every `get` gives a fresh copy: nothing a pass kept is the same object. */
class Forgetful implements ReadonlyMap<string, Screen> {
  constructor(readonly all: ReadonlyMap<string, Screen>) {}
  get(k: string): Screen | undefined {
    const s = this.all.get(k);
    return s && structuredClone(s);
  }
  has(k: string): boolean {
    return this.all.has(k);
  }
  get size(): number {
    return this.all.size;
  }
  forEach(fn: (v: Screen, k: string, m: ReadonlyMap<string, Screen>) => void): void {
    for (const k of this.all.keys()) fn(this.get(k)!, k, this);
  }
  *entries(): MapIterator<[string, Screen]> {
    for (const k of this.all.keys()) yield [k, this.get(k)!];
  }
  keys(): MapIterator<string> {
    return this.all.keys();
  }
  *values(): MapIterator<Screen> {
    for (const k of this.all.keys()) yield this.get(k)!;
  }
  [Symbol.iterator](): MapIterator<[string, Screen]> {
    return this.entries();
  }
}

async function captureFiles(): Promise<string[]> {
  const files: string[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (/\.jsonl?$/.test(e.name)) files.push(p);
    }
  };
  for (const d of [`${ROOT}examples`, `${ROOT}tests/testdata`, `${ROOT}../shared/corpus`]) {
    await walk(d).catch(() => {});
  }
  return files.sort();
}

Deno.test("every capture projects to the same bytes when no screen or table is held between asks", async () => {
  let compared = 0;
  for (const f of await captureFiles()) {
    let c;
    try {
      c = f.endsWith(".jsonl") ? await loadEventsFile(f) : await loadCaptureFile(f, "s1");
    } catch {
      continue; // not a capture
    }
    if (!c.events.some((e) => e.type === "ActionPerformed")) continue;
    for (const heuristics of ["v1", "v2", "v3"]) {
      for (const mode of ["strict", "flexible", "adaptive"] as const) {
        const opts = { mode, heuristics };
        let held: string, forgetful: string;
        try {
          held = projectTrail(c.events, { ...opts, screens: c.screens, tables: new Map() }).yaml;
        } catch (e) {
          held = `error: ${e}`;
        }
        try {
          forgetful = projectTrail(c.events, {
            ...opts,
            screens: new Forgetful(c.screens),
            tables: new RecentMap<string, ScreenTable>(1),
          }).yaml;
        } catch (e) {
          forgetful = `error: ${e}`;
        }
        assertEquals(forgetful, held, `${f} ${heuristics} ${mode}`);
        compared++;
      }
    }
  }
  // examples, goldens, the robustness and held-out captures, the corpus flows: 387 on 2026-11-28
  assert(compared > 300, `only ${compared} projections compared`);
});

Deno.test("a long stored capture is projected holding a bounded number of screens, and the trail is the one an unbounded cache gives", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_projection_memory_" });
  try {
    const n = SCREENS_HELD * 6;
    const file = `${dir}/long.capture.json`;
    await Deno.writeTextFile(file, realisticCapture({ actions: n }));
    const store = SqliteEventStore.open(`${dir}/cairn.db`);
    try {
      const { sessionId: id } = await ingestFile(store, file);
      // count the screens read back from the store, and keep an eye on the ones decoded
      let reads = 0;
      const getDerivedSync = store.getDerivedSync.bind(store);
      store.getDerivedSync = (hash: string, kind: string) => {
        reads++;
        return getDerivedSync(hash, kind);
      };
      const bounded = await projectSessionTrail(store, id);
      const boundedReads = reads;
      reads = 0;
      const all = new Map<string, Screen>();
      const unbounded = await projectSessionTrail(store, id, { screens: all });
      assertEquals(bounded.yaml, unbounded.yaml);
      // the unbounded cache held all n screens; the bounded one dropped some and read them again
      assertEquals(all.size, n);
      assert(
        boundedReads > reads,
        `${boundedReads} reads bounded, ${reads} unbounded: nothing was dropped`,
      );
      // one bounded cache shared by several projections (as reproject shares one): a screen in it
      // when a projection starts may be dropped before it is asked for, and is read again
      const { sessionId: again } = await ingestFile(store, file); // the same screens, again
      const shared = {
        screens: new RecentMap<string, Screen>(2),
        tables: new RecentMap<string, ScreenTable>(2),
      };
      assertEquals((await projectSessionTrail(store, id, shared)).yaml, unbounded.yaml);
      assertEquals(
        (await projectSessionTrail(store, again, shared)).yaml,
        (await projectSessionTrail(store, again, { screens: new Map() })).yaml,
      );

      // a store that kept no parsed screens (a log written before they were kept): each hierarchy is still
      // read and parsed once, though screens are dropped and asked for again
      store.close();
      const db = new DatabaseSync(`${dir}/cairn.db`);
      db.exec("DELETE FROM derived");
      db.close();
      const bare = SqliteEventStore.open(`${dir}/cairn.db`);
      try {
        let blobReads = 0;
        const getBlobBytesSync = bare.getBlobBytesSync.bind(bare);
        bare.getBlobBytesSync = (hash: string) => {
          blobReads++;
          return getBlobBytesSync(hash);
        };
        assertEquals((await projectSessionTrail(bare, id)).yaml, unbounded.yaml);
        assertEquals(blobReads, n);
      } finally {
        bare.close();
      }
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RecentMap keeps the entries used last", () => {
  const m = new RecentMap<string, number>(2);
  m.set("a", 1).set("b", 2);
  assertEquals(m.get("a"), 1);
  m.set("c", 3);
  assertEquals([...m.keys()], ["a", "c"]);
  m.set("a", 4);
  m.set("d", 5);
  assertEquals([...m.entries()], [["a", 4], ["d", 5]]);
  assertEquals(m.get("zzz"), undefined);
  let threw = false;
  try {
    new RecentMap(0);
  } catch (e) {
    threw = e instanceof RangeError;
  }
  assert(threw, "a RecentMap of 0 entries is refused");
});
