/**
 * Validation on a changed app refines every failing step in one iteration: a seven-step flow
 * (sign in, add two plants from identical "Add" buttons, read the total, check out, verify the
 * order on the page that opens) is blazed on a nursery shop with test ids and fixed DOM ids, then validated against a variant of
 * the same page with the test ids removed, the ids random on every load, the class names
 * churned, the buttons and the field restyled (another size), the product rows reversed, a
 * banner inserted and the old checkout button left hidden in the markup (its test id now picks a
 * hidden element). Every action's selectors find nothing there, or only that hidden button; each
 * element is placed on the replay's screen by the capture's fingerprint, its new selectors are
 * adopted and the replay goes on from it, so the next iteration proves the whole trail. Real Chromium, pages served from 127.0.0.1, a real SQLite file.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { runValidation } from "../../../runners/validation/runner.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseTrail, type Selector, type Trail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

const PLANTS = [["Fern", 12], ["Cactus", 9], ["Orchid", 30]] as const;

function token(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => "abcdefghij"[b % 10]).join(
    "",
  );
}

/**
 * The nursery page. `mutated`: no test ids, random ids and classes, the rows reversed, a banner.
 */
function page(mutated: boolean): string {
  const ids = new Map<string, string>();
  const id = (fixed: string) => {
    if (!ids.has(fixed)) ids.set(fixed, mutated ? `x-${token()}` : fixed);
    return ids.get(fixed)!;
  };
  const tid = (t: string) => mutated ? "" : ` data-testid="${t}"`;
  const cls = mutated ? `c-${token()}` : "plain";
  const rows = (mutated ? [...PLANTS].reverse() : PLANTS).map(([name, price]) =>
    `<li class="${cls}"><span>${name}</span> <span>$${price}</span> ` +
    `<button id="${id(`add-${name.toLowerCase()}`)}"${tid(`add-${name.toLowerCase()}`)}` +
    ` class="${cls}" onclick="add(${price})">Add</button></li>`
  ).join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Green Corner</title>
<style>body{font-family:sans-serif;width:520px;margin:0;padding:12px}
li{display:flex;gap:12px;align-items:center;padding:4px 0}.banner{background:#fde68a;padding:20px}
${mutated ? "button{padding:6px 18px;font-size:15px}input{width:260px}" : ""}</style>
</head><body>
${mutated ? '<div class="banner">Autumn sale: bulbs half price</div>' : ""}
<h1>Green Corner</h1>
<section id="${id("login")}">
<label for="${id("email")}">Email</label>
<input id="${id("email")}"${tid("email")} class="${cls}" type="email">
<button id="${id("sign-in")}"${tid("sign-in")} class="${cls}" onclick="signIn()">Sign in</button>
</section>
<section id="${id("shop")}" class="shop" hidden>
<p>Signed in as <span class="who"></span></p>
<ul>
${rows}
</ul>
<p>Total: <output id="${id("total")}"${tid("total")} aria-label="Order total">$0</output></p>
<button id="${id("checkout")}"${
    tid("checkout")
  } class="${cls}" onclick="checkout()">Check out</button>
${mutated ? '<button data-testid="checkout" hidden>Check out</button>' : ""}
</section>
<script>
let total = 0, items = 0;
function signIn() {
  document.querySelector(".who").textContent = document.querySelector("input").value;
  document.querySelector(".shop").hidden = false;
}
function add(price) { total += price; items += 1; document.querySelector("output").textContent = "$" + total; }
function checkout() { location.href = "order?items=" + items + "&total=" + total; }
</script></body></html>`;
}

/** The order page checking out leads to (a new document), changed as the shop is. */
function orderPage(mutated: boolean, query: URLSearchParams): string {
  const id = mutated ? `x-${token()}` : "result";
  const tid = mutated ? "" : ' data-testid="result"';
  const items = Number(query.get("items") ?? 0);
  const total = Number(query.get("total") ?? 0);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your order</title>
</head><body>${mutated ? '<div class="banner">Autumn sale: bulbs half price</div>' : ""}
<h1>Your order</h1>
<p role="status" id="${id}"${tid}>Order placed: ${items} plants, $${total}</p>
</body></html>`;
}

/** The shop (`/a/…`) and its changed variant (`/b/…`), each a nursery page and an order page. */
function serve(): { url: (mutated: boolean) => string; close: () => Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    const m = url.pathname.match(/^\/([ab])\/(nursery|order)$/);
    if (!m) return new Response("Not found", { status: 404 });
    const mutated = m[1] === "b";
    const html = m[2] === "nursery" ? page(mutated) : orderPage(mutated, url.searchParams);
    return new Response(html, {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    url: (mutated) => `${base}/${mutated ? "b" : "a"}/nursery`,
    close: () => server.shutdown(),
  };
}

/** Blazes the flow on the original page, as an agent does: NL steps, then tools on refs. */
async function blaze(driver: ChromeDriver, store: SqliteEventStore, url: string): Promise<string> {
  const s = await BlazeSession.start(driver, store, {
    url,
    prompt: "Buy a fern and an orchid",
    screenshots: false,
    settleMs: 100,
  });
  const snap = async () => (await s.call("snapshot", {})).output;
  const must = async (step: string, tool: string, params: Record<string, unknown>) => {
    await s.call("step", { text: step });
    const r = await s.call(tool, params);
    if (!r.ok) throw new Error(`${tool} failed: ${r.error}`);
  };
  /** The ref of the "Add" button on the row showing `plant`. */
  const addRef = (out: string, plant: string) => {
    const lines = out.split("\n");
    const at = lines.findIndex((l) => l.includes(JSON.stringify(plant)));
    const line = lines.slice(at).find((l) => l.includes('"Add"'));
    return refIn(line ?? "", "Add");
  };
  const field = (await snap()).split("\n").find((l) => l.includes("textbox")) ?? "";
  await must("Type the email", "type", { ref: refIn(field, "Email"), text: "ada@example.com" });
  await must("Sign in", "tap", { ref: refIn(await snap(), "Sign in") });
  await must("Add a fern", "tap", { ref: addRef(await snap(), "Fern") });
  await must("Add an orchid", "tap", { ref: addRef(await snap(), "Orchid") });
  await must("Note the total", "read", {
    ref: refIn(await snap(), "Order total"),
    storeAs: "total",
  });
  await must("Check out", "tap", { ref: refIn(await snap(), "Check out") });
  const out = await snap();
  const done = "Order placed: 2 plants, $42";
  await must("Verify the order", "assert", { ref: refIn(out, done), text: done });
  await s.end("completed");
  return s.id;
}

function selectorsOf(trail: Trail): Selector[][] {
  return trail.trail.map((s) =>
    (s.recording ?? []).flatMap((
      a,
    ) => [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])])
  );
}

Deno.test("runValidation() on a changed app places every failing step's element in one iteration and ends stable in two", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validation-place-" });
  const site = serve();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const sessionId = await blaze(driver, store, site.url(false));
    const progress: string[] = [];
    // Projected at heuristics v2, whose adaptive trail holds one selector per action (a test id
    // here): nothing for the player to heal through, so every step fails as written.
    const state = await runValidation(driver, store, sessionId, {
      url: site.url(true),
      heuristics: "v2",
      onProgress: (l) => progress.push(l),
    });
    const log = progress.join("\n");
    assertEquals(state.status, "stable", log);
    assert(state.iteration <= 2, log);
    const steps = state.finalSteps!;
    assertEquals(steps.length, 7, log);
    // Every targeted step's test id is gone from the changed page: each was placed and refined
    // in the first iteration, none was skipped as after an earlier failure.
    const first = state.iterations[0]!.steps;
    for (const [i, s] of first.entries()) {
      assertEquals(s.refined, true, `step ${i + 1} refined in iteration 1:\n${log}`);
      assert(!s.dependent, `step ${i + 1} was played, not skipped:\n${log}`);
      assert(
        s.evidence.some((e) =>
          e.includes("refined from the replay's screen: placed by its fingerprint")
        ),
        `step ${i + 1}: ${s.evidence.join(" | ")}`,
      );
    }
    assert(
      first[5]!.evidence.some((e) => e.startsWith("action 1 (tap): element_hidden: ")),
      first[5]!.evidence.join(" | "),
    );
    assertEquals(state.iterations[1]!.passed, true, log);
    assertEquals(steps.map((s) => s.status), Array(7).fill("refined"), log);
    const final = parseTrail(state.trail, "final trail");
    assert(final.trail.every((s) => s.recordable !== false), state.trail);
    // No test id or random id is left, and the two identical "Add" buttons are told apart by
    // their rows, not by their position (the rows are reversed on the changed page).
    const sels = selectorsOf(final);
    for (const list of sels) {
      assert(list.length > 0, state.trail);
      for (const sel of list) {
        assert(sel.testId === undefined && sel.id === undefined, state.trail);
        assert(sel.index === undefined && sel.xy === undefined, state.trail);
      }
    }
    assert(JSON.stringify(sels[2]).includes("Fern"), JSON.stringify(sels[2]));
    assert(JSON.stringify(sels[3]).includes("Orchid"), JSON.stringify(sels[3]));
    // The validated trail replays on fresh loads of the changed page with nothing healed.
    const replay = await runPlayback(driver, store, trailToPlan(final), { overlay: false });
    assertEquals(replay.actions_failed, 0, JSON.stringify(replay.results));
    assertEquals(replay.actions_healed, 0, JSON.stringify(replay.results));

    // At the default heuristics too (whatever its trail holds: one selector or a chain the
    // player heals through), the changed page is validated stable within two iterations.
    const lines: string[] = [];
    const byDefault = await runValidation(driver, store, sessionId, {
      url: site.url(true),
      onProgress: (l) => lines.push(l),
    });
    assertEquals(byDefault.status, "stable", lines.join("\n"));
    assert(byDefault.iteration <= 2, lines.join("\n"));
    for (const s of byDefault.finalSteps!) {
      assert(s.status === "stable" || s.status === "refined", lines.join("\n"));
    }
  } finally {
    await driver.close();
    store.close();
    await site.close();
    await Deno.remove(dir, { recursive: true });
  }
});
