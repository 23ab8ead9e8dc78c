/**
 * A fictional bank app's screens as generated UiAutomator page sources, for the Android
 * robustness set (`android_robustness_test.ts`): a home screen with the balance and a
 * transactions RecyclerView whose rows share `txn_title`/`txn_amount`/`txn_more` ids, a transfer
 * form and a confirmation, each in seven variants (as recorded; ids renamed; texts changed; a
 * banner pushing everything down; the list reordered with an extra row; a 1440×3120 screen; ids,
 * texts and banner together). Every element the flow acts on has a logical name and its bounds
 * in each variant, so a replay is scored by the element it hit, not by whether it failed.
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
export const VARIANTS = [
  "as recorded",
  "ids renamed",
  "texts changed",
  "banner pushes down",
  "list reordered + extra row",
  "1440x3120 screen",
  "ids + texts + banner",
] as const;
export type Variant = typeof VARIANTS[number];

/** One generated screen: its XML and the bounds of each logical element on it. */
export type BankScreen = GeneratedScreen;

const PKG = "com.example.bank";

const ROWS_RECORDED: [string, string][] = [
  ["Payroll", "+$2,000.00"],
  ["Transfer to Alex", "-$40.00"],
  ["Coffee Corner", "-$4.75"],
  ["Electric bill", "-$61.20"],
];

/** The screens of one variant: `home`, `transfer`, `confirm`. */
export function bankScreens(variant: Variant): Record<string, BankScreen> {
  const renamed = variant === "ids renamed" || variant === "ids + texts + banner";
  const retexted = variant === "texts changed" || variant === "ids + texts + banner";
  const banner = variant === "banner pushes down" || variant === "ids + texts + banner";
  const scale = variant === "1440x3120 screen" ? 4 / 3 : 1;
  const [W, H] = [Math.round(1080 * scale), Math.round(2340 * scale)];
  const id = (name: string) => `${PKG}:id/${renamed ? `${name.replace(/_/g, "")}_v2` : name}`;
  const text = (recorded: string, changed: string) => retexted ? changed : recorded;
  const top = banner ? 220 : 0;
  const at = (x: number, y: number, w: number, h: number): Box => ({
    x: Math.round(x * scale),
    y: Math.round((y + top) * scale),
    w: Math.round(w * scale),
    h: Math.round(h * scale),
  });
  const bannerSpec: Spec[] = banner
    ? [{
      cls: "android.widget.TextView",
      id: `${PKG}:id/promo_banner`,
      text: "New: instant transfers are here",
      box: { x: 0, y: 0, w: W, h: Math.round(220 * scale) },
    }]
    : [];
  const rows: [string, string][] = variant === "list reordered + extra row"
    ? [
      ["Grocery Mart", "-$23.10"] as [string, string],
      ROWS_RECORDED[2]!,
      ROWS_RECORDED[1]!,
      ["Refund", "+$12.00"] as [string, string],
      ROWS_RECORDED[0]!,
      ROWS_RECORDED[3]!,
    ]
    : ROWS_RECORDED;
  const logicalName = (title: string) => title.toLowerCase().replace(/[^a-z]+/g, "_");
  const home: Spec = {
    cls: "android.widget.FrameLayout",
    box: { x: 0, y: 0, w: W, h: H },
    children: [
      ...bannerSpec,
      {
        cls: "android.widget.TextView",
        text: text("Available balance", "Your balance"),
        box: at(60, 200, 600, 60),
      },
      {
        cls: "android.widget.TextView",
        id: id("balance_value"),
        text: "$1,250.00",
        box: at(60, 270, 700, 120),
        logical: "balance",
      },
      {
        cls: "android.widget.Button",
        id: id("transfer_button"),
        text: text("Transfer", "Send money"),
        box: at(60, 440, 400, 140),
        clickable: true,
        logical: "transfer",
      },
      {
        cls: "androidx.recyclerview.widget.RecyclerView",
        id: id("txn_list"),
        box: at(0, 640, 1080, 1500),
        scrollable: true,
        children: rows.map(([title, amount], k): Spec => ({
          cls: "android.widget.LinearLayout",
          box: at(0, 640 + k * 220, 1080, 220),
          children: [
            {
              cls: "android.widget.TextView",
              id: id("txn_title"),
              text: title,
              box: at(60, 680 + k * 220, 600, 70),
            },
            {
              cls: "android.widget.TextView",
              id: id("txn_date"),
              text: "Nov 27",
              box: at(60, 760 + k * 220, 300, 50),
            },
            {
              cls: "android.widget.TextView",
              id: id("txn_amount"),
              text: amount,
              box: at(700, 690 + k * 220, 240, 80),
              logical: `amount:${logicalName(title)}`,
            },
            {
              cls: "android.widget.ImageView",
              id: id("txn_more"),
              desc: "More",
              box: at(960, 690 + k * 220, 100, 100),
              clickable: true,
              logical: `more:${logicalName(title)}`,
            },
          ],
        })),
      },
    ],
  };
  const field = (name: string, hint: string, y: number, logical: string): Spec => ({
    cls: "android.widget.EditText",
    id: id(name),
    text: hint,
    box: at(60, y, 960, 140),
    clickable: true,
    logical,
  });
  const transfer: Spec = {
    cls: "android.widget.FrameLayout",
    box: { x: 0, y: 0, w: W, h: H },
    children: [
      ...bannerSpec,
      {
        cls: "android.widget.TextView",
        text: text("Send a transfer", "New transfer"),
        box: at(60, 160, 900, 90),
      },
      field("recipient_input", text("Recipient", "To"), 300, "recipient"),
      field("amount_input", text("Amount", "How much"), 480, "amount"),
      {
        cls: "android.widget.Button",
        id: id("send_button"),
        text: text("Send", "Confirm"),
        box: at(60, 700, 960, 150),
        clickable: true,
        logical: "send",
      },
    ],
  };
  const confirm: Spec = {
    cls: "android.widget.FrameLayout",
    box: { x: 0, y: 0, w: W, h: H },
    children: [
      ...bannerSpec,
      {
        cls: "android.widget.TextView",
        id: id("confirm_title"),
        text: text("Transfer sent", "All done"),
        box: at(60, 300, 900, 100),
      },
      {
        cls: "android.widget.TextView",
        id: id("confirm_message"),
        text: "You sent $25.00 to Alex",
        box: at(60, 440, 900, 80),
        logical: "confirmation",
      },
    ],
  };
  return {
    home: render(home, W, H),
    transfer: render(transfer, W, H),
    confirm: render(confirm, W, H),
  };
}

function render(root: Spec, w: number, h: number): BankScreen {
  return renderUiAutomator(root, w, h, PKG);
}
