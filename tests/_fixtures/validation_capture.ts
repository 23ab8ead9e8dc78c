/**
 * Test helper: captures a run of the varying shop the way an agent does — NL steps, then tool
 * calls on refs read from each snapshot — through D's {@linkcode BlazeSession}.
 *
 * @module
 */
import { BlazeSession } from "../../runners/blaze/session.ts";
import type { Driver } from "../../drivers/driver.ts";
import type { EventStore } from "../../events/event_store.ts";
import { refIn } from "./blaze_refs.ts";

/** Which steps the agent performs. */
export interface ShopScenario {
  /** Include "Pick any available delivery slot" (no stable target). */
  slot?: boolean;
  /**
   * Include "Verify the total is the price doubled", whose only call fails (a stale ref), and
   * "Check the receipt", started and abandoned with no call.
   */
  failedCheck?: boolean;
}

/** The ref of the first enabled button whose line in the snapshot names one of `labels`. */
function enabledRef(snapshot: string, labels: readonly string[]): string {
  for (const line of snapshot.split("\n")) {
    if (/disabled/.test(line)) continue;
    for (const l of labels) {
      if (line.includes(JSON.stringify(l))) {
        const m = line.match(/\[(?:ref=)?([a-z]\d{1,3}[a-z]*)\]/);
        if (m) return m[1]!;
      }
    }
  }
  throw new Error(`No enabled button among ${labels.join(", ")} in:\n${snapshot}`);
}

/**
 * Blazes the shop: search, add an Espresso, note the cart count, (pick a slot,) check out and
 * verify the order.
 *
 * @param driver a browser
 * @param store where the session goes
 * @param url the shop's url
 * @param scenario which steps
 * @returns the session id
 */
export async function blazeShop(
  driver: Driver,
  store: EventStore,
  url: string,
  scenario: ShopScenario = {},
): Promise<string> {
  const s = await BlazeSession.start(driver, store, {
    url,
    prompt: "Buy an espresso and check out",
    screenshots: false,
    settleMs: 100,
  });
  const snap = async () => (await s.call("snapshot", {})).output;
  const must = async (tool: string, params: Record<string, unknown>) => {
    const r = await s.call(tool, params);
    if (!r.ok) throw new Error(`${tool} failed: ${r.error}`);
    return r;
  };
  await s.call("step", { text: "Search for coffee" });
  await must("type", { ref: refIn(await snap(), "Search products"), text: "coffee" });
  await s.call("step", { text: "Add an Espresso to the cart" });
  await must("tap", { ref: refIn(await snap(), "Add Espresso") });
  await s.call("step", { text: "Note how many items are in the cart" });
  let out = await snap();
  await must("read", { ref: refIn(out, "Items in cart"), storeAs: "cartCount" });
  if (scenario.slot) {
    await s.call("step", { text: "Pick any available delivery slot" });
    out = await snap();
    await must("tap", {
      ref: enabledRef(out, ["09:00", "10:00", "11:00", "12:00", "13:00", "14:00"]),
    });
  }
  if (scenario.failedCheck) {
    await s.call("step", { text: "Verify the total is the price doubled" });
    await snap();
    const r = await s.call("assert", { ref: "s335", text: "$6.00" });
    if (r.ok) throw new Error("assert on a stale ref succeeded");
    await s.call("step", { text: "Check the receipt" });
  }
  await s.call("step", { text: "Check out" });
  await must("tap", { ref: refIn(await snap(), "Checkout") });
  await s.call("step", { text: "Verify the order was placed" });
  out = await snap();
  await must("assert", { ref: refIn(out, "Order placed: 1 item"), text: "Order placed: 1 item" });
  await s.end("completed");
  return s.id;
}
