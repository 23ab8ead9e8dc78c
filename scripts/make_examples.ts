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
  console.log("wrote examples/inventory.capture.json");
}
