/**
 * A shop page that changes on every load the way real apps do, for the validation tests:
 * DOM ids and test ids are random on every load, class names are regenerated
 * (`css-<hash>`), the product list is shuffled, an A/B banner is present on every other load
 * (half the loads) and exactly one delivery slot is available, a different one on each load
 * ("pick any available slot" has no stable target).
 *
 * @module
 */

/** The delivery slots the page offers; one is enabled per load. */
export const SLOTS = ["09:00", "10:00", "11:00", "12:00", "13:00", "14:00"] as const;
/** The products, in their unshuffled order. */
export const PRODUCTS = ["Espresso", "Latte", "Cappuccino", "Mocha", "Flat white"] as const;

/** What one load looked like. */
export interface ShopLoad {
  banner: boolean;
  slot: string;
  order: string[];
}

/** A running varying shop. */
export interface VaryingShop {
  /** The page's url. */
  url: string;
  /** Every load served so far, in order. */
  loads: ShopLoad[];
  close(): Promise<void>;
}

const TEMPLATE = new URL("../testdata/validation/shop.html", import.meta.url);

function randomToken(n: number): string {
  const abc = "abcdefghijklmnopqrstuvwxyz";
  const bytes = crypto.getRandomValues(new Uint8Array(n));
  return Array.from(bytes, (b) => abc[b % abc.length]).join("");
}

function shuffle<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = crypto.getRandomValues(new Uint32Array(1))[0]! % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function escape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
}

/** Options of {@linkcode serveVaryingShop}. */
export interface ShopOptions {
  /** Vary between loads (default true); false serves the same page every time (a control). */
  vary?: boolean;
}

/**
 * Serves the varying shop on 127.0.0.1 at a free port (`/shop`).
 *
 * @param options `vary: false` for a page that never changes
 * @returns the url, the loads served and `close`
 */
export async function serveVaryingShop(options: ShopOptions = {}): Promise<VaryingShop> {
  const template = await Deno.readTextFile(TEMPLATE);
  const loads: ShopLoad[] = [];
  const vary = options.vary ?? true;
  const render = (): string => {
    const n = loads.length;
    let fixed = 0;
    const token = vary ? randomToken : (k: number) => `f${String(fixed++).padStart(k - 1, "0")}`;
    const banner = vary && n % 2 === 0;
    const previous = loads.at(-1)?.slot;
    const free = SLOTS.filter((s) => s !== previous);
    const slot = vary
      ? free[crypto.getRandomValues(new Uint32Array(1))[0]! % free.length]!
      : "10:00";
    const order = vary ? shuffle(PRODUCTS) : [...PRODUCTS];
    loads.push({ banner, slot, order });
    const cls = `css-${token(6)}`;
    const products = order.map((p) =>
      `  <li class="css-${token(5)}"><span>${escape(p)}</span>` +
      `<button data-testid="add-${token(4)}" id="p-${token(6)}" class="css-${token(6)}"` +
      ` aria-label="Add ${escape(p)}" onclick="add('${escape(p)}')">Add</button></li>`
    ).join("\n");
    const slots = SLOTS.map((s) =>
      `  <button id="slot-${token(5)}" class="css-${token(6)}"${s === slot ? "" : " disabled"}` +
      ` onclick="pick('${s}')">${s}</button>`
    ).join("\n");
    return template
      .replace(
        "{{BANNER}}",
        banner ? `<div class="promo ${cls}">Spring sale: 20% off everything</div>` : "",
      )
      .replaceAll("{{CLS}}", cls)
      .replace("{{SEARCH_ID}}", `q-${token(6)}`)
      .replace("{{CHECKOUT_ID}}", `b-${token(6)}`)
      .replace("{{PRODUCTS}}", products)
      .replace("{{SLOTS}}", slots);
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path !== "/shop") return new Response("Not found", { status: 404 });
    return new Response(render(), {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/shop`,
    loads,
    close: () => server.shutdown(),
  };
}
