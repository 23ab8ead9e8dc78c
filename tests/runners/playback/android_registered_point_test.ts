/**
 * The player's registered point on Android (stand-in WebDriver server, no device): a control
 * whose id and text both changed is taken by its class + position only where the recorded point
 * lands once two or more elements earlier actions found on the same screen say how the layout
 * moved, and only when its recorded name is gone from the screen. Anywhere else it is refused,
 * and nothing is tapped.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import type { Trail, TrailAction } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals } from "../../_fixtures/assert.ts";

const PKG = "com.example.pay";
type Box = [number, number, number, number];

function node(cls: string, box: Box, attrs: Record<string, string> = {}): string {
  const [x, y, w, h] = box;
  const a = {
    text: "",
    "resource-id": "",
    "content-desc": "",
    clickable: "false",
    enabled: "true",
    displayed: "true",
    ...attrs,
  };
  const list = Object.entries(a).map(([k, v]) => `${k}="${v}"`).join(" ");
  return `<node index="0" class="${cls}" package="${PKG}" ${list} bounds="[${x},${y}][${x + w},${
    y + h
  }]" />`;
}

/** The screen as replayed: everything 200 px lower than recorded, the button renamed. */
function screen(options: { buttonY?: number; oldNameShown?: boolean } = {}): string {
  const kids = [
    node("android.widget.TextView", [0, 300, 1080, 100], {
      text: "Checkout",
      "resource-id": `${PKG}:id/title`,
    }),
    node("android.widget.TextView", [0, 420, 1080, 80], {
      text: "Total $9.00",
      "resource-id": `${PKG}:id/total`,
    }),
    node("android.widget.Button", [60, options.buttonY ?? 900, 960, 150], {
      text: "Confirm",
      "resource-id": `${PKG}:id/confirm_button`,
      clickable: "true",
    }),
    ...(options.oldNameShown
      ? [node("android.widget.ImageView", [0, 1500, 120, 120], { "content-desc": "Pay" })]
      : []),
  ].join("");
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0" width="1080" height="2340"><node index="0" class="android.widget.FrameLayout" package="${PKG}" bounds="[0,0][1080,2340]">${kids}</node></hierarchy>`;
}

const viewport = { width: 1080, height: 2340 };
const read = (id: string, y: number, storeAs: string): TrailAction => ({
  kind: "readText",
  selectors: [{ id: `${PKG}:id/${id}` }, { xy: [540, y], viewport }],
  storeAs,
});
/** Recorded at y 700–850: "Pay", id pay_button. */
const pay: TrailAction = {
  kind: "tap",
  selectors: [
    { id: `${PKG}:id/pay_button` },
    { text: "Pay" },
    { className: "android.widget.Button", index: 0 },
    { xy: [540, 775], viewport },
  ],
};

async function play(actions: TrailAction[], xml: string) {
  const standin = startAndroidStandin({ screens: { pay: xml } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_registered_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const trail = {
      config: { platform: "android" },
      trail: actions.map((a, k) => ({ step: `step ${k}`, recording: [a] })),
    } as unknown as Trail;
    const report = await runPlayback(driver, store, trailToPlan(trail), {
      locateWaitMs: 0,
      expectWaitMs: 100,
      settleAfterMs: 0,
    });
    return { report, taps: standin.gestures.filter((g) => g.kind === "tap").map((g) => g.from) };
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a renamed button is taken at the registered point: two landmarks moved by 200 px put the recorded point on it", async () => {
  const { report, taps } = await play(
    [read("title", 150, "title"), read("total", 260, "total"), pay],
    screen(),
  );
  const tap = report.results[2]!;
  assertEquals(tap.status, "healed", JSON.stringify(tap));
  assertEquals(taps, [{ x: 540, y: 975 }]);
});

Deno.test("a renamed button is refused off the registered point, with one landmark, or while its old name is shown", async () => {
  for (
    const [why, actions, xml] of [
      [
        "elsewhere",
        [read("title", 150, "t"), read("total", 260, "u"), pay],
        screen({ buttonY: 1300 }),
      ],
      ["one landmark", [read("title", 150, "t"), pay], screen()],
      [
        "old name shown",
        [read("title", 150, "t"), read("total", 260, "u"), pay],
        screen({ oldNameShown: true }),
      ],
    ] as const
  ) {
    const { report, taps } = await play([...actions], xml);
    const tap = report.results[report.results.length - 1]!;
    assertEquals(tap.status, "failed", `${why}: ${JSON.stringify(tap)}`);
    assertEquals(taps, [], why);
    assert(report.results.slice(0, -1).every((r) => r.status === "ok"), why);
  }
});
