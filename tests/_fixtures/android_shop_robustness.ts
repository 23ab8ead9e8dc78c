/**
 * A HELD-OUT Android robustness set: a fictional grocery app's screens as generated UiAutomator
 * page sources, written after the bank set's fixes and not tuned on
 * (`android_heldout_robustness_test.ts`). A catalog with a products RecyclerView whose rows
 * share `product_name` / `product_price` / `add_button` ids, a checkout form whose fields are
 * empty EditTexts named only by the label TextView above each, a checkbox, and an order
 * confirmation; each in eight variants (as recorded; ids minified; copy changed; list reordered
 * with extra rows; a toolbar pushing everything down; a 720×1600 screen; the form's fields
 * swapped; ids minified with the form's fields swapped). Every element the flow acts on has a
 * logical name and its bounds in each variant, so a replay is scored by the element it hit.
 *
 * @module
 */
import {
  type Box,
  type GeneratedScreen,
  renderUiAutomator,
  type Spec,
} from "./uiautomator_render.ts";

/** The variants, in the order the benchmark reports them. */
export const SHOP_VARIANTS = [
  "as recorded",
  "ids minified",
  "copy changed",
  "list reordered + extra rows",
  "toolbar pushes down",
  "720x1600 screen",
  "form fields swapped",
  "ids minified + fields swapped",
] as const;
export type ShopVariant = typeof SHOP_VARIANTS[number];

/** One generated screen: its XML and the bounds of each logical element on it. */
export type ShopScreen = GeneratedScreen;

const PKG = "org.example.freshmarket";

const PRODUCTS: [string, string][] = [
  ["Bananas", "$1.20"],
  ["Oat milk", "$3.49"],
  ["Sourdough bread", "$4.50"],
  ["Free-range eggs", "$5.10"],
];

/** Minified ids, as an obfuscating build renames resources: a stable letter per name. */
const MINIFIED: Record<string, string> = {};

function minify(name: string): string {
  if (!MINIFIED[name]) {
    const n = Object.keys(MINIFIED).length;
    MINIFIED[name] = `${String.fromCharCode(97 + (n % 26))}${n}`;
  }
  return MINIFIED[name]!;
}

/** The screens of one variant: `catalog`, `checkout`, `confirm`. */
export function shopScreens(variant: ShopVariant): Record<string, ShopScreen> {
  const minified = variant === "ids minified" || variant === "ids minified + fields swapped";
  const swapped = variant === "form fields swapped" || variant === "ids minified + fields swapped";
  const copy = variant === "copy changed";
  const toolbar = variant === "toolbar pushes down";
  const [sx, sy] = variant === "720x1600 screen" ? [720 / 1080, 1600 / 2400] : [1, 1];
  const [W, H] = [Math.round(1080 * sx), Math.round(2400 * sy)];
  const id = (name: string) => `${PKG}:id/${minified ? minify(name) : name}`;
  const say = (recorded: string, changed: string) => copy ? changed : recorded;
  const top = toolbar ? 168 : 0;
  const at = (x: number, y: number, w: number, h: number): Box => ({
    x: Math.round(x * sx),
    y: Math.round((y + top) * sy),
    w: Math.round(w * sx),
    h: Math.round(h * sy),
  });
  const bar: Spec[] = toolbar
    ? [{
      cls: "android.view.ViewGroup",
      id: `${PKG}:id/toolbar`,
      box: { x: 0, y: 0, w: W, h: Math.round(168 * sy) },
      children: [{
        cls: "android.widget.TextView",
        text: "Fresh Market",
        box: { x: Math.round(48 * sx), y: Math.round(40 * sy), w: Math.round(600 * sx), h: 88 },
      }],
    }]
    : [];
  const products: [string, string][] = variant === "list reordered + extra rows"
    ? [
      PRODUCTS[3]!,
      ["Apples", "$2.80"],
      PRODUCTS[1]!,
      PRODUCTS[0]!,
      ["Butter", "$3.99"],
      PRODUCTS[2]!,
    ]
    : PRODUCTS;
  const key = (name: string) => name.toLowerCase().replace(/[^a-z]+/g, "_");
  const catalog: Spec = {
    cls: "android.widget.FrameLayout",
    box: { x: 0, y: 0, w: W, h: H },
    children: [
      ...bar,
      {
        cls: "android.widget.TextView",
        id: id("screen_title"),
        text: say("Groceries", "Shop groceries"),
        box: at(48, 100, 700, 90),
      },
      {
        cls: "androidx.recyclerview.widget.RecyclerView",
        id: id("product_list"),
        box: at(0, 220, 1080, 1320),
        scrollable: true,
        children: products.map(([name, price], k): Spec => ({
          cls: "android.view.ViewGroup",
          box: at(0, 220 + k * 220, 1080, 220),
          children: [
            {
              cls: "android.widget.TextView",
              id: id("product_name"),
              text: name,
              box: at(48, 250 + k * 220, 560, 70),
            },
            {
              cls: "android.widget.TextView",
              id: id("product_price"),
              text: price,
              box: at(48, 330 + k * 220, 300, 60),
              logical: `price:${key(name)}`,
            },
            {
              cls: "android.widget.Button",
              id: id("add_button"),
              text: say("Add", "Add to basket"),
              box: at(760, 270 + k * 220, 272, 120),
              clickable: true,
              logical: `add:${key(name)}`,
            },
          ],
        })),
      },
      {
        cls: "android.widget.Button",
        id: id("checkout_button"),
        text: say("Checkout", "Go to basket"),
        box: at(48, 2000, 984, 150),
        clickable: true,
        logical: "checkout",
      },
    ],
  };
  const field = (label: string, changed: string, name: string, logical: string, y: number) => [
    {
      cls: "android.widget.TextView",
      id: id(`${name}_label`),
      text: say(label, changed),
      box: at(48, y, 600, 60),
    },
    {
      cls: "android.widget.EditText",
      id: id(`${name}_field`),
      text: "",
      box: at(48, y + 70, 984, 140),
      clickable: true,
      logical,
    },
  ];
  const nameField = (y: number) => field("Full name", "Your name", "name", "name", y);
  const addressField = (y: number) => field("Address", "Deliver to", "address", "address", y);
  const checkout: Spec = {
    cls: "android.widget.FrameLayout",
    box: { x: 0, y: 0, w: W, h: H },
    children: [
      ...bar,
      {
        cls: "android.widget.TextView",
        id: id("checkout_title"),
        text: say("Delivery details", "Where should we deliver?"),
        box: at(48, 100, 984, 90),
      },
      ...(swapped ? [...addressField(240), ...nameField(480)] : [
        ...nameField(240),
        ...addressField(480),
      ]),
      {
        cls: "android.widget.CheckBox",
        id: id("express_check"),
        text: say("Express delivery", "Deliver today"),
        box: at(48, 740, 984, 110),
        clickable: true,
        checkable: true,
        logical: "express",
      },
      {
        cls: "android.widget.Button",
        id: id("place_order"),
        text: say("Place order", "Pay now"),
        box: at(48, 2000, 984, 150),
        clickable: true,
        logical: "place_order",
      },
    ],
  };
  const confirm: Spec = {
    cls: "android.widget.FrameLayout",
    box: { x: 0, y: 0, w: W, h: H },
    children: [
      ...bar,
      {
        cls: "android.widget.TextView",
        id: id("order_message"),
        text: "Your order is on its way",
        box: at(48, 300, 984, 90),
        logical: "message",
      },
      {
        cls: "android.widget.TextView",
        id: id("total_label"),
        text: say("Total", "You paid"),
        box: at(48, 440, 400, 70),
      },
      {
        cls: "android.widget.TextView",
        id: id("total_value"),
        text: "$3.49",
        box: at(600, 440, 432, 70),
        logical: "total",
      },
    ],
  };
  return {
    catalog: render(catalog, W, H),
    checkout: render(checkout, W, H),
    confirm: render(confirm, W, H),
  };
}

function render(root: Spec, w: number, h: number): ShopScreen {
  return renderUiAutomator(root, w, h, PKG);
}
