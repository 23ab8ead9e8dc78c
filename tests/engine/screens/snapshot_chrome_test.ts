/**
 * The joined Chrome hierarchy on real pages: Debian's Chromium through puppeteer-core, pages
 * served from 127.0.0.1 (Cairn's snapshot test page and the corpus's Trailblaze sample app).
 */
import { captureChromeHierarchy } from "../../../drivers/chrome/hierarchy.ts";
import { launchChrome } from "../../../drivers/chrome/launch.ts";
import { ChromeHierarchy, parseChromeHierarchy } from "../../../engine/screens/chrome_hierarchy.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { resolveRef } from "../../../engine/screens/resolve_ref.ts";
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";
import { type UiNode, walk } from "../../../engine/screens/ui_node.ts";
import { assert, assertEquals, assertMatch, assertThrows } from "../../_fixtures/assert.ts";
import { buildCapture } from "../../_fixtures/optimizer_support.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const OWN_PAGES = new URL("../../testdata/snapshots/web/", import.meta.url).pathname;
const CORPUS_WEB = new URL("../../../../shared/corpus/web/", import.meta.url).pathname;

function find(root: UiNode, pred: (n: UiNode) => boolean): UiNode {
  for (const [n] of walk(root)) if (pred(n)) return n;
  throw new Error("node not found");
}

async function capture(
  folder: string,
  path: string,
  scrollY = 0,
  before?: (page: import("puppeteer-core").Page) => Promise<void>,
): Promise<ChromeHierarchy> {
  const server = serveFolder(folder);
  const browser = await launchChrome();
  try {
    const page = await browser.browser.newPage();
    await page.setViewport({ width: 1000, height: 700 });
    await page.goto(server.url + path, { waitUntil: "load" });
    if (scrollY) await page.evaluate(`window.scrollTo(0, ${scrollY})`);
    if (before) await before(page);
    const cdp = await page.createCDPSession();
    const h = await captureChromeHierarchy(cdp);
    await cdp.detach();
    return h;
  } finally {
    await browser.close();
    await server.close();
  }
}

Deno.test("captureChromeHierarchy() joins AX nodes with DOM attributes, layout and shadow DOM", async () => {
  const h = await capture(OWN_PAGES, "form.html");
  assertEquals(ChromeHierarchy.parse(h).schema_version, "cairn.chrome/v1");
  assertEquals(h.viewport, { width: 1000, height: 700 });
  assertEquals(h.title, "Snapshot form");
  const screen = parseHierarchy(JSON.stringify(h)); // auto-detected from schema_version
  assertEquals([screen.platform, screen.format, screen.width], ["web", "chrome", 1000]);

  const email = find(screen.root, (n) => n.resourceId === "email");
  assertEquals(email.className, "textbox");
  assertEquals(email.testId, "email-field");
  assertEquals(email.hint, "you@example.com");
  assertEquals(email.name, "Email");
  assertEquals(email.attrs?.cssPath, "#email");
  assertEquals(email.attrs?.tag, "input");
  assertEquals(email.attrs?.type, "email");
  assert(email.bounds.w > 100 && email.bounds.h > 10 && email.clickable);

  const pw = find(screen.root, (n) => n.resourceId === "pw");
  assertEquals([pw.password, pw.contentDescription], [true, "Password"]);
  const remember = find(screen.root, (n) => n.className === "checkbox");
  assertEquals([remember.checked, remember.checkable], [true, true]);

  const signIn = find(screen.root, (n) => n.className === "button" && n.name === "Sign in");
  assertEquals(signIn.testId, "sign-in");
  assertEquals(signIn.attrs?.testIdAttribute, "data-test");
  assertEquals(signIn.attrs?.cssPath, "#login > button.btn.primary"); // css-1x2y3z4 skipped
  assertEquals(find(screen.root, (n) => n.name === "Disabled").enabled, false);
  assertEquals(find(screen.root, (n) => n.testId === "help-link").attrs?.href, "/help");
  assertEquals(find(screen.root, (n) => n.resourceId === "list").scrollable, true);

  const shadow = find(screen.root, (n) => n.testId === "shadow-btn");
  assertEquals(shadow.attrs?.cssPath, "#card >>> div.inner > button");
  assertEquals(find(screen.root, (n) => n.text === "In shadow").className, "StaticText");
  // display:none content is not in the tree; content below the fold is, with its real box
  assert(![...walk(screen.root)].some(([n]) => n.name === "Hidden"));
  assert(find(screen.root, (n) => n.resourceId === "far").bounds.y > 700);
});

Deno.test("parseChromeHierarchy() gives viewport coordinates on a scrolled page", async () => {
  const h = await capture(OWN_PAGES, "form.html", 1200);
  assert(h.scroll.y > 1000, `scrolled to ${h.scroll.y}`);
  const screen = parseChromeHierarchy(h);
  const far = find(screen.root, (n) => n.resourceId === "far");
  const raw = h.nodes.find((n) => n.dom?.id === "far")!;
  assertEquals(far.bounds.y, raw.bounds![1] - h.scroll.y);
  assert(far.bounds.y > 0 && far.bounds.y < 700, `far at ${far.bounds.y}`);
});

Deno.test("captureChromeHierarchy() reads the corpus sample app's ids and aria-labels", async () => {
  const h = await capture(
    `${CORPUS_WEB}trailblaze-playwright-native-sample-app/`,
    "index.html#form",
  );
  const screen = parseChromeHierarchy(h);
  const nav = find(screen.root, (n) => n.className === "navigation");
  assertEquals(nav.contentDescription, "Main navigation");
  assertEquals(find(nav, (n) => n.resourceId === "nav-form").className, "link");
  const name = find(screen.root, (n) => n.resourceId === "name-input");
  assertEquals([name.contentDescription, name.hint, name.attrs?.cssPath], [
    "Name",
    "Enter your name",
    "#name-input",
  ]);
  const select = find(screen.root, (n) => n.resourceId === "category-select");
  assertEquals([select.className, select.name], ["combobox", "Category"]);
  // the hidden sections (display: none) are absent
  assert(![...walk(screen.root)].some(([n]) => n.resourceId === "increment-btn"));
});

Deno.test("parseChromeHierarchy() throws SyntaxError naming the field of a bad hierarchy", () => {
  const good = {
    schema_version: "cairn.chrome/v1",
    url: "http://127.0.0.1/",
    viewport: { width: 10, height: 10 },
    devicePixelRatio: 1,
    scroll: { x: 0, y: 0 },
    nodes: [{ role: "RootWebArea", children: [1] }, { role: "button" }],
  };
  assertEquals(parseChromeHierarchy(good).root.children.length, 1);
  assertThrows(
    () => parseChromeHierarchy({ ...good, viewport: { width: "x", height: 1 } }),
    SyntaxError,
    "viewport.width",
  );
  assertThrows(
    () => parseChromeHierarchy({ ...good, nodes: [{ role: "RootWebArea", children: [0] }] }),
    SyntaxError,
    "nodes.0.children",
  );
  assertThrows(() => parseChromeHierarchy('{"schema_version": '), SyntaxError, "line 1, column 20");
});

Deno.test("captureChromeHierarchy() captures every corpus web page; every ref shown resolves", async () => {
  const server = serveFolder(CORPUS_WEB);
  const browser = await launchChrome();
  try {
    const page = await browser.browser.newPage();
    let pages = 0;
    let total = 0;
    for (
      const dir of [
        "puppeteer-replay",
        "trailblaze-playwright-native-sample-app",
        "devtools-recorder",
      ]
    ) {
      for (
        const e of [...Deno.readDirSync(`${CORPUS_WEB}${dir}`)].sort((a, b) =>
          a.name < b.name ? -1 : 1
        )
      ) {
        await page.goto(`${server.url}${dir}/${e.name}`, { waitUntil: "load" });
        const cdp = await page.createCDPSession();
        const h = await captureChromeHierarchy(cdp);
        await cdp.detach();
        const screen = parseChromeHierarchy(JSON.parse(JSON.stringify(h)));
        const text = renderSnapshot(screen, { offscreen: true });
        const refs = [...text.matchAll(/\[ref=([a-z]\d+[a-z]*)\]/g)].map((m) => m[1]!);
        if (refs.length === 0) assertEquals(text, "(no elements)\n", `${dir}/${e.name}`);
        else total += refs.length;
        for (const ref of refs) assertEquals(resolveRef(screen, ref).ref, ref);
        if (e.name === "main.html" && dir === "puppeteer-replay") {
          // a link's text nodes are its name, not children; an element with an id inside it
          // (here in its shadow root) is kept, with its text
          assertMatch(
            text,
            /\n- link "Hello\sWorld" \[ref=[a-z]\d+\]:\n {2}- generic "World" \[ref=[a-z]\d+\]\n/,
          );
          assert(!/text "Hello\s"/.test(text), text);
          // <span id="span2">Hello</span> World: the span is kept, the bare text stays text
          assertMatch(text, /\n {2}- generic "Hello" \[ref=[a-z]\d+\]\n {2}- text " World"/);
        }
        pages++;
      }
    }
    assertEquals(pages, 19);
    assert(total > 150, `${total} refs over the corpus pages`);
  } finally {
    await browser.close();
    await server.close();
  }
});

Deno.test("captureChromeHierarchy() never holds a typed password", async () => {
  const h = await capture(OWN_PAGES, "form.html", 0, async (page) => {
    await page.type("#pw", "hunter2-secret");
    await page.type("#email", "alice@example.com");
  });
  const json = JSON.stringify(h);
  assert(!json.includes("hunter2"), "password text captured");
  const email = parseChromeHierarchy(h).root;
  assert(
    [...walk(email)].some(([n]) => n.value === "alice@example.com"),
    "the email value is kept",
  );
});

Deno.test("captureChromeHierarchy() keeps a value span with a test id but no role; the optimizer selects it by test id", async () => {
  const h = await capture(OWN_PAGES, "cart.html");
  const screen = parseChromeHierarchy(JSON.parse(JSON.stringify(h)));
  const count = find(screen.root, (n) => n.testId === "cart-count");
  assertEquals([count.className, count.text, count.attrs?.tag], ["generic", "3", "span"]);
  assertEquals(count.children.length, 0); // its only text node is folded into it
  const total = find(screen.root, (n) => n.resourceId === "cart-total");
  assertEquals([total.className, total.text], ["generic", "$42.00"]);
  // the display:none span with an id is not kept
  assert(![...walk(screen.root)].some(([n]) => n.resourceId === "gone-span"));

  const table = ScreenTable.from(screen);
  const centre = {
    x: count.bounds.x + count.bounds.w / 2,
    y: count.bounds.y + count.bounds.h / 2,
  };
  assertEquals(table.node(table.hitTest(centre)), count);
  assertEquals(table.count({ testId: "cart-count" }), 1);
  assertEquals(table.count({ text: "3" }), 2); // the page shows another bare "3": text is ambiguous

  const { events, screens } = buildCapture("web", [
    { step: "Open the cart", screen, kind: "tap", point: centre },
    {
      step: "Read the cart count",
      screen,
      kind: "readText",
      point: centre,
      value: "3",
      storeAs: "n",
    },
  ]);
  const p = projectTrail(events, { screens, mode: "adaptive" });
  const rec = parseTrail(p.yaml).trail.flatMap((s) => s.recording ?? []);
  // the test id first (v3 adds the fallbacks after it)
  assertEquals(rec.map((a) => [a.kind, a.selector ?? a.selectors?.[0]]), [
    ["tap", { testId: "cart-count" }],
    ["readText", { testId: "cart-count" }],
  ]);
});
