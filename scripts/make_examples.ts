/**
 * Writes the example captures in `examples/`: 000's inventory flow and 001's merchant e-mail
 * flow as Android captures (`cairn.capture/v1`) with UiAutomator2 page sources in the shape
 * Appium returns for a React Native app (testID → resource-id), and a web flow with Cairn's
 * joined Chrome hierarchy. Run: `deno run -A scripts/make_examples.ts`.
 *
 * @module
 */

interface W {
  cls: string;
  text?: string;
  id?: string;
  desc?: string;
  hint?: string;
  b: [number, number, number, number]; // x1, y1, x2, y2
  clickable?: boolean;
  focusable?: boolean;
  focused?: boolean;
  password?: boolean;
  scrollable?: boolean;
  children?: W[];
}

const PKG = "com.example.inventory";

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

function xmlNode(w: W, index: number, depth: number, pkg: string): string {
  const pad = "  ".repeat(depth);
  const attrs = [
    `index="${index}"`,
    `package="${pkg}"`,
    `class="${w.cls}"`,
    `text="${esc(w.text ?? "")}"`,
    ...(w.id ? [`resource-id="${esc(w.id)}"`] : []),
    ...(w.desc ? [`content-desc="${esc(w.desc)}"`] : []),
    ...(w.hint ? [`hint="${esc(w.hint)}"`] : []),
    `checkable="false"`,
    `checked="false"`,
    `clickable="${w.clickable === true}"`,
    `enabled="true"`,
    `focusable="${w.focusable ?? w.clickable === true}"`,
    `focused="${w.focused === true}"`,
    `long-clickable="false"`,
    `password="${w.password === true}"`,
    `scrollable="${w.scrollable === true}"`,
    `selected="false"`,
    `bounds="[${w.b[0]},${w.b[1]}][${w.b[2]},${w.b[3]}]"`,
    `displayed="true"`,
  ].join(" ");
  const kids = w.children ?? [];
  if (kids.length === 0) return `${pad}<${w.cls} ${attrs} />`;
  return [
    `${pad}<${w.cls} ${attrs}>`,
    ...kids.map((c, i) => xmlNode(c, i, depth + 1, pkg)),
    `${pad}</${w.cls}>`,
  ].join("\n");
}

/** A UiAutomator2 page source of a React Native screen (status bar, app frame, content). */
function pageSource(content: W[], pkg = PKG): string {
  const root: W = {
    cls: "android.widget.FrameLayout",
    b: [0, 0, 1080, 2400],
    children: [{
      cls: "android.widget.LinearLayout",
      b: [0, 0, 1080, 2400],
      children: [{
        cls: "android.widget.FrameLayout",
        id: "android:id/content",
        b: [0, 63, 1080, 2400],
        children: [{
          cls: "android.widget.FrameLayout",
          b: [0, 63, 1080, 2400],
          children: [{
            cls: "android.view.ViewGroup",
            b: [0, 63, 1080, 2400],
            children: content,
          }],
        }],
      }],
    }],
  };
  return [
    `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>`,
    `<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">`,
    xmlNode(root, 0, 1, pkg),
    `</hierarchy>`,
    "",
  ].join("\n");
}

function label(text: string, b: W["b"], id?: string): W {
  return { cls: "android.widget.TextView", text, b, ...(id ? { id } : {}) };
}

function button(id: string, text: string, b: W["b"]): W {
  const pad = 30;
  return {
    cls: "android.view.ViewGroup",
    id,
    clickable: true,
    b,
    children: [label(text, [b[0] + pad, b[1] + pad, b[2] - pad, b[3] - pad])],
  };
}

function field(id: string, hint: string, text: string, b: W["b"], extra: Partial<W> = {}): W {
  return {
    cls: "android.widget.EditText",
    id,
    hint,
    text: text === "" ? hint : text,
    clickable: true,
    focusable: true,
    b,
    ...extra,
  };
}

// ---- 000: inventory ----

function header(title: string): W[] {
  return [
    label(title, [60, 150, 1020, 260], "screen-title"),
  ];
}

function inventoryScreen(count: number): string {
  const rows = [["Apples", "12"], ["Pears", "4"], ["Plums", "9"]].map(([name, qty], i): W => ({
    cls: "android.view.ViewGroup",
    b: [60, 900 + i * 180, 1020, 1060 + i * 180],
    children: [
      label(name!, [90, 930 + i * 180, 600, 1030 + i * 180], "item-name"),
      label(qty!, [800, 930 + i * 180, 990, 1030 + i * 180], "item-quantity"),
    ],
  }));
  return pageSource([
    ...header("Inventory"),
    label("Items in stock", [60, 340, 700, 420]),
    label(String(count), [60, 440, 400, 600], "inventory-count"),
    button("add-item-button", "Add item", [60, 660, 1020, 800]),
    {
      cls: "android.widget.ScrollView",
      id: "item-list",
      scrollable: true,
      b: [0, 880, 1080, 2400],
      children: [{ cls: "android.view.ViewGroup", b: [0, 880, 1080, 1480], children: rows }],
    },
  ]);
}

function inventoryCapture(): { capture: unknown; screens: Record<string, string> } {
  const screens: Record<string, string> = {
    "01_email.xml": pageSource([
      ...header("Sign in"),
      field("email-input", "Email", "", [60, 500, 1020, 640], { focused: true }),
      button("next-button", "Next", [60, 700, 1020, 840]),
      label("Forgot your password?", [60, 900, 1020, 980], "forgot-link"),
    ]),
    "02_email_typed.xml": pageSource([
      ...header("Sign in"),
      field("email-input", "Email", "alice@example.com", [60, 500, 1020, 640], {
        focused: true,
      }),
      button("next-button", "Next", [60, 700, 1020, 840]),
      label("Forgot your password?", [60, 900, 1020, 980], "forgot-link"),
    ]),
    "03_password.xml": pageSource([
      ...header("Sign in"),
      label("alice@example.com", [60, 330, 1020, 420], "account-email"),
      field("password-input", "Password", "", [60, 500, 1020, 640], {
        focused: true,
        password: true,
      }),
      button("sign-in-button", "Sign In", [60, 700, 1020, 840]),
    ]),
    "04_password_typed.xml": pageSource([
      ...header("Sign in"),
      label("alice@example.com", [60, 330, 1020, 420], "account-email"),
      field("password-input", "Password", "•••••••••••", [60, 500, 1020, 640], {
        focused: true,
        password: true,
      }),
      button("sign-in-button", "Sign In", [60, 700, 1020, 840]),
    ]),
    "05_inventory_5.xml": inventoryScreen(5),
    "06_inventory_6.xml": inventoryScreen(6),
    "07_inventory_7.xml": inventoryScreen(7),
  };
  const memory = { email: "alice@example.com", password: "password123" };
  const t0 = Date.parse("2026-03-09T10:00:00Z");
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  const capture = {
    format: "cairn.capture/v1",
    platform: "android",
    mode: "agent",
    prompt: "Sign in with the test account, note the inventory count, add 2 items and verify " +
      "the inventory increased by 2",
    app: PKG,
    device: "Pixel 7 (emulator-5554)",
    viewport: { width: 1080, height: 2400 },
    devicePixelRatio: 2.625,
    drivers: { appium: "3.1.0", uiautomator2: "5.0.3" },
    memory,
    startedAt: at(0),
    actions: [
      {
        action: "inputText",
        nlStep: "Sign in with the test account",
        viewHierarchy: { file: "inventory/01_email.xml" },
        text: "alice@example.com",
        toolName: "inputText",
        toolParams: { text: "alice@example.com" },
        memoryState: memory,
        timestamp: at(2),
      },
      {
        action: "tap",
        viewHierarchy: { file: "inventory/02_email_typed.xml" },
        runtimeSelector: "Sign in",
        toolName: "tapOnElementWithText",
        toolParams: { text: "Sign in" },
        successful: false,
        error: 'No element with text "Sign in" is clickable',
        memoryState: memory,
        timestamp: at(4),
      },
      {
        action: "tap",
        coordinates: { x: 540, y: 770 },
        viewHierarchy: { file: "inventory/02_email_typed.xml" },
        runtimeSelector: "Next",
        toolName: "tapOnElementWithText",
        toolParams: { text: "Next" },
        memoryState: memory,
        timestamp: at(5),
      },
      {
        action: "inputText",
        viewHierarchy: { file: "inventory/03_password.xml" },
        text: "password123",
        toolName: "inputText",
        toolParams: { text: "password123" },
        memoryState: memory,
        timestamp: at(7),
      },
      {
        action: "tap",
        coordinates: { x: 540, y: 770 },
        viewHierarchy: { file: "inventory/04_password_typed.xml" },
        runtimeSelector: "Sign In",
        toolName: "tapOnElementWithText",
        toolParams: { text: "Sign In" },
        memoryState: memory,
        timestamp: at(8),
      },
      {
        action: "readText",
        nlStep: "Note the current inventory count",
        coordinates: { x: 230, y: 520 },
        viewHierarchy: { file: "inventory/05_inventory_5.xml" },
        value: "5",
        toolName: "readText",
        memoryState: memory,
        timestamp: at(11),
      },
      {
        action: "tap",
        nlStep: "Add 2 items",
        coordinates: { x: 540, y: 730 },
        viewHierarchy: { file: "inventory/05_inventory_5.xml" },
        runtimeSelector: "Add item",
        toolName: "tapOnElementWithText",
        toolParams: { text: "Add item" },
        memoryState: memory,
        timestamp: at(13),
      },
      {
        action: "tap",
        coordinates: { x: 540, y: 730 },
        viewHierarchy: { file: "inventory/06_inventory_6.xml" },
        runtimeSelector: "Add item",
        toolName: "tapOnElementWithText",
        toolParams: { text: "Add item" },
        memoryState: memory,
        timestamp: at(14),
      },
      {
        action: "assertVisible",
        nlStep: "Verify inventory increased by 2",
        viewHierarchy: { file: "inventory/07_inventory_7.xml" },
        expected: "7",
        toolName: "assertVisible",
        toolParams: { text: "7" },
        memoryState: memory,
        timestamp: at(16),
      },
    ],
  };
  return { capture, screens };
}

// ---- 001: merchant e-mail ----

const MPKG = "com.example.merchant";
const EMAIL = "trailblaze+merchant.coffee-shop.abc123@example.com";
const TOKEN = "ML4XV8YWNMESK";

function merchantCapture(): { capture: unknown; screens: Record<string, string> } {
  const signIn = (focus: "none" | "email" | "code", email: string, code: string) =>
    pageSource([
      label("Sign in to your store", [60, 150, 1020, 260], "screen-title"),
      field("merchant-email-input", "Email", email, [60, 400, 1020, 540], {
        focused: focus === "email",
      }),
      field("store-code-input", "Store code", code, [60, 600, 1020, 740], {
        focused: focus === "code",
      }),
      button("sign-in-button", "Sign in", [60, 820, 1020, 960]),
    ], MPKG);
  const tabs: W = {
    cls: "android.view.ViewGroup",
    id: "tab-bar",
    b: [0, 2200, 1080, 2400],
    children: [
      { ...button("home-tab", "Home", [0, 2200, 540, 2400]), desc: "Home" },
      { ...button("profile-tab", "Profile", [540, 2200, 1080, 2400]), desc: "Profile" },
    ],
  };
  const screens: Record<string, string> = {
    "01_sign_in.xml": signIn("none", "", ""),
    "02_email_focused.xml": signIn("email", "", ""),
    "03_email_typed.xml": signIn("email", EMAIL, ""),
    "04_code_focused.xml": signIn("code", EMAIL, ""),
    "05_code_typed.xml": signIn("code", EMAIL, "4821"),
    "06_home.xml": pageSource([
      label("Coffee Shop", [60, 150, 1020, 260], "screen-title"),
      label("Welcome back", [60, 300, 1020, 380]),
      tabs,
    ], MPKG),
    "07_profile.xml": pageSource([
      label("Profile", [60, 150, 1020, 260], "screen-title"),
      label(EMAIL, [60, 300, 1020, 380], "merchant-email-label"),
      label("US", [60, 400, 300, 480], "country-label"),
      label(`Signed in as ${EMAIL}`, [60, 500, 1020, 580], "signed-in-as"),
      button("card-reader-row", "Card reader", [0, 640, 1080, 780]),
      tabs,
    ], MPKG),
    "08_reader.xml": pageSource([
      label("Card reader", [60, 150, 1020, 260], "screen-title"),
      field("reader-code-input", "Pairing code", "", [60, 400, 1020, 540], { focused: true }),
      button("pair-button", "Pair", [60, 620, 1020, 760]),
    ], MPKG),
    "09_reader_typed.xml": pageSource([
      label("Card reader", [60, 150, 1020, 260], "screen-title"),
      field("reader-code-input", "Pairing code", TOKEN, [60, 400, 1020, 540], { focused: true }),
      button("pair-button", "Pair", [60, 620, 1020, 760]),
    ], MPKG),
  };
  const memory = {
    merchant_email: EMAIL,
    merchant_token: TOKEN,
    merchant_store_code: "4821",
    api_key: TOKEN,
    country: "US",
  };
  const writtenBy = {
    merchant_email: "merchantFactory_loadAccount",
    merchant_token: "merchantFactory_loadAccount",
    merchant_store_code: "merchantFactory_loadAccount",
    api_key: "memory.set",
    country: "memory.set",
  };
  const t0 = Date.parse("2026-03-10T09:00:00Z");
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  let n = 0;
  const act = (a: Record<string, unknown>) => ({ ...a, memoryState: memory, timestamp: at(++n) });
  const capture = {
    format: "cairn.capture/v1",
    platform: "android",
    mode: "agent",
    prompt: "Launch the app signed in as the coffee shop merchant, check the profile shows the " +
      "merchant's email, then pair the card reader with the merchant token",
    systemPrompt: "You are testing the merchant app. Use the merchant account loaded by " +
      "merchantFactory_loadAccount; its values are in memory as ${merchant_email}, " +
      "${merchant_token} and ${merchant_store_code}.",
    app: MPKG,
    device: "Pixel 7 (emulator-5554)",
    viewport: { width: 1080, height: 2400 },
    memoryWrittenBy: writtenBy,
    startedAt: at(0),
    actions: [
      act({
        action: "memorySet",
        nlStep: "Load the coffee shop merchant account",
        toolName: "merchantFactory_loadAccount",
        toolParams: { account: "coffee-shop" },
        storeAs: "merchant_email",
        value: EMAIL,
      }),
      act({
        action: "tap",
        nlStep: "Sign in as the coffee shop merchant",
        coordinates: { x: 540, y: 470 },
        viewHierarchy: { file: "merchant/01_sign_in.xml" },
        toolName: "tap",
      }),
      act({
        action: "inputText",
        viewHierarchy: { file: "merchant/02_email_focused.xml" },
        text: EMAIL,
        toolName: "inputText",
        toolParams: { text: EMAIL },
      }),
      act({
        action: "tap",
        coordinates: { x: 540, y: 670 },
        viewHierarchy: { file: "merchant/03_email_typed.xml" },
        toolName: "tap",
      }),
      act({
        action: "inputText",
        viewHierarchy: { file: "merchant/04_code_focused.xml" },
        text: "4821",
        toolName: "inputText",
        toolParams: { text: "4821" },
      }),
      act({
        action: "tap",
        coordinates: { x: 540, y: 890 },
        viewHierarchy: { file: "merchant/05_code_typed.xml" },
        runtimeSelector: "Sign in",
        toolName: "tapOnElementWithText",
        toolParams: { text: "Sign in" },
      }),
      act({
        action: "tap",
        nlStep: "Open the merchant's profile",
        coordinates: { x: 810, y: 2300 },
        viewHierarchy: { file: "merchant/06_home.xml" },
        runtimeSelector: { contentDescription: "Profile" },
        toolName: "tap",
      }),
      act({
        action: "assertVisible",
        nlStep: "Verify the profile shows the merchant's email and country",
        viewHierarchy: { file: "merchant/07_profile.xml" },
        expected: EMAIL,
        toolName: "assertVisible",
        toolParams: { text: EMAIL },
      }),
      act({
        action: "assertVisible",
        viewHierarchy: { file: "merchant/07_profile.xml" },
        expected: "US",
        toolName: "assertVisible",
        toolParams: { text: "US" },
      }),
      act({
        action: "assertText",
        coordinates: { x: 540, y: 540 },
        viewHierarchy: { file: "merchant/07_profile.xml" },
        expected: `Signed in as ${EMAIL}`,
        toolName: "assertText",
      }),
      act({
        action: "tap",
        nlStep: "Pair the card reader with the merchant token",
        coordinates: { x: 540, y: 710 },
        viewHierarchy: { file: "merchant/07_profile.xml" },
        toolName: "tap",
      }),
      act({
        action: "inputText",
        viewHierarchy: { file: "merchant/08_reader.xml" },
        text: TOKEN,
        toolName: "inputText",
        toolParams: { text: TOKEN },
      }),
      act({
        action: "tap",
        coordinates: { x: 540, y: 690 },
        viewHierarchy: { file: "merchant/09_reader_typed.xml" },
        toolName: "tap",
      }),
    ],
  };
  return { capture, screens };
}

// ---- web: checkout (Cairn's joined Chrome hierarchy, cairn.chrome/v1) ----

interface C {
  role: string;
  name?: string;
  value?: string;
  states?: string[];
  tag?: string;
  dom?: Record<string, string>;
  cssPath?: string;
  bounds?: [number, number, number, number];
  clickable?: boolean;
  kids?: C[];
}

function chromeJson(url: string, tree: C): string {
  const nodes: Record<string, unknown>[] = [];
  const visit = (c: C): number => {
    const i = nodes.length;
    const { kids, ...rest } = c;
    const node: Record<string, unknown> = { ...rest };
    nodes.push(node);
    if (kids && kids.length > 0) node.children = kids.map(visit);
    return i;
  };
  visit(tree);
  return JSON.stringify(
    {
      schema_version: "cairn.chrome/v1",
      url,
      title: "Checkout — Plant Shop",
      viewport: { width: 1280, height: 800 },
      devicePixelRatio: 1,
      scroll: { x: 0, y: 0 },
      nodes,
    },
    null,
    1,
  ) + "\n";
}

function text(t: string, b: [number, number, number, number]): C {
  return { role: "StaticText", name: t, tag: "#text", bounds: b };
}

function checkoutPage(o: { email: string; qty: string; focus?: string; total: string }): string {
  const focused = (id: string) =>
    o.focus === id ? ["focusable", "focused", "editable"] : [
      "focusable",
      "editable",
    ];
  return chromeJson("http://127.0.0.1:8080/checkout", {
    role: "RootWebArea",
    name: "Checkout — Plant Shop",
    tag: "html",
    kids: [{
      role: "main",
      tag: "main",
      cssPath: "main",
      bounds: [0, 0, 1280, 800],
      kids: [
        {
          role: "heading",
          name: "Checkout",
          tag: "h1",
          cssPath: "main > h1",
          bounds: [40, 20, 600, 40],
          kids: [text("Checkout", [40, 20, 160, 40])],
        },
        {
          role: "textbox",
          name: "Email",
          value: o.email,
          states: focused("email"),
          tag: "input",
          dom: {
            id: "email",
            "data-testid": "checkout-email",
            placeholder: "you@example.com",
            type: "email",
          },
          cssPath: "#email",
          bounds: [40, 90, 400, 36],
        },
        {
          role: "combobox",
          name: "Shipping",
          value: "Standard",
          tag: "select",
          dom: { id: "shipping" },
          cssPath: "#shipping",
          bounds: [40, 150, 400, 36],
        },
        {
          role: "generic",
          tag: "div",
          dom: { id: "item-price", class: "price css-1x7q2v" },
          cssPath: "#item-price",
          bounds: [40, 210, 200, 30],
          kids: [text("$25.00", [40, 215, 70, 20])],
        },
        {
          role: "spinbutton",
          name: "Quantity",
          value: o.qty,
          states: focused("quantity"),
          tag: "input",
          dom: { id: "quantity", type: "number" },
          cssPath: "#quantity",
          bounds: [260, 210, 120, 30],
        },
        {
          role: "button",
          name: "Apply coupon",
          tag: "button",
          dom: { id: ":r3:", class: "sc-bdVaJa coupon" },
          cssPath: "main > button:nth-of-type(1)",
          bounds: [40, 260, 160, 36],
          kids: [text("Apply coupon", [50, 268, 140, 20])],
        },
        {
          role: "generic",
          tag: "div",
          dom: { id: "order-total" },
          cssPath: "#order-total",
          bounds: [40, 320, 200, 30],
          kids: [text(o.total, [40, 325, 70, 20])],
        },
        {
          role: "generic",
          tag: "p",
          dom: { "data-testid": "delivery-date" },
          cssPath: "main > p",
          bounds: [40, 370, 300, 24],
          kids: [text("March 12, 2026", [40, 372, 130, 20])],
        },
        {
          role: "button",
          name: "Place order",
          tag: "button",
          dom: { "data-testid": "place-order" },
          cssPath: "[data-testid=place-order]",
          bounds: [40, 420, 200, 44],
          kids: [text("Place order", [60, 432, 100, 20])],
        },
      ],
    }],
  });
}

function webCapture(): { capture: unknown; screens: Record<string, string> } {
  const screens: Record<string, string> = {
    "01_checkout.json": checkoutPage({ email: "", qty: "1", total: "$25.00" }),
    "02_email_focused.json": checkoutPage({ email: "", qty: "1", focus: "email", total: "$25.00" }),
    "03_email_typed.json": checkoutPage({ email: "bob@example.com", qty: "1", total: "$25.00" }),
    "04_quantity_focused.json": checkoutPage({
      email: "bob@example.com",
      qty: "1",
      focus: "quantity",
      total: "$25.00",
    }),
    "05_quantity_2.json": checkoutPage({ email: "bob@example.com", qty: "2", total: "$50.00" }),
  };
  const t0 = Date.parse("2026-03-11T15:00:00Z");
  let n = 0;
  const act = (a: Record<string, unknown>) => ({
    ...a,
    timestamp: new Date(t0 + ++n * 1000).toISOString(),
  });
  const screen = (f: string) => ({
    viewHierarchy: { file: `web_checkout/${f}` },
    format: "chrome",
  });
  const capture = {
    format: "cairn.capture/v1",
    platform: "web",
    mode: "agent",
    prompt: "Buy two plants with express shipping as bob@example.com and check the total",
    url: "http://127.0.0.1:8080/checkout",
    device: "Chromium (headless)",
    viewport: { width: 1280, height: 800 },
    devicePixelRatio: 1,
    actions: [
      act({
        action: "navigate",
        nlStep: "Open the checkout page",
        url: "http://127.0.0.1:8080/checkout",
      }),
      act({
        action: "tap",
        nlStep: "Enter the customer's email",
        coordinates: { x: 240, y: 108 },
        ...screen("01_checkout.json"),
      }),
      act({ action: "inputText", text: "bob@", ...screen("02_email_focused.json") }),
      act({ action: "inputText", text: "example.com", ...screen("02_email_focused.json") }),
      act({
        action: "select",
        nlStep: "Choose express shipping",
        coordinates: { x: 240, y: 168 },
        value: "Express",
        ...screen("03_email_typed.json"),
      }),
      act({
        action: "readText",
        nlStep: "Note the item price",
        coordinates: { x: 70, y: 225 },
        value: "$25.00",
        storeAs: "price",
        ...screen("03_email_typed.json"),
      }),
      act({
        action: "tap",
        nlStep: "Set the quantity to 2",
        coordinates: { x: 320, y: 225 },
        ...screen("03_email_typed.json"),
      }),
      act({ action: "inputText", text: "2", ...screen("04_quantity_focused.json") }),
      act({
        action: "scroll",
        nlStep: "Apply the coupon",
        direction: "down",
        ...screen("05_quantity_2.json"),
      }),
      act({ action: "scroll", direction: "down", ...screen("05_quantity_2.json") }),
      act({
        action: "tap",
        coordinates: { x: 120, y: 278 },
        runtimeSelector: { css: "#\\:r3\\:" },
        ...screen("05_quantity_2.json"),
      }),
      act({
        action: "assertText",
        nlStep: "Verify the order total is correct",
        coordinates: { x: 70, y: 335 },
        expected: "$50.00",
        ...screen("05_quantity_2.json"),
      }),
      act({
        action: "assertVisible",
        nlStep: "Verify a delivery date is shown",
        expected: "March 12, 2026",
        ...screen("05_quantity_2.json"),
      }),
      act({
        action: "tap",
        nlStep: "Place the order",
        coordinates: { x: 140, y: 442 },
        ...screen("05_quantity_2.json"),
      }),
    ],
  };
  return { capture, screens };
}

async function writeExample(
  name: string,
  made: { capture: unknown; screens: Record<string, string> },
): Promise<void> {
  await Deno.mkdir(`examples/${name}`, { recursive: true });
  for (const [file, text] of Object.entries(made.screens)) {
    await Deno.writeTextFile(`examples/${name}/${file}`, text);
  }
  await Deno.writeTextFile(
    `examples/${name}.capture.json`,
    JSON.stringify(made.capture, null, 2) + "\n",
  );
}

if (import.meta.main) {
  await writeExample("inventory", inventoryCapture());
  await writeExample("merchant", merchantCapture());
  await writeExample("web_checkout", webCapture());
  console.log("wrote examples/{inventory,merchant,web_checkout}.capture.json");
}
