import { assertEquals } from "../../_fixtures/assert.ts";
import { describeAction, type PlaybackAction } from "../../../engine/playback/actions.ts";

Deno.test("describeAction() names Android targets as Appium does, web targets as CSS", () => {
  const cases: [PlaybackAction, "web" | "android", string][] = [
    [
      { type: "click", target: { id: "com.app:id/ok", text: "OK" } },
      "android",
      "click id=com.app:id/ok",
    ],
    [
      { type: "type", target: { testId: "RNE__Input", index: 1 } },
      "android",
      "type id=RNE__Input[1]",
    ],
    [{ type: "click", target: { contentDescription: "Forms" } }, "android", "click ~Forms"],
    [{ type: "click", target: { text: "LOGIN" } }, "android", 'click text="LOGIN"'],
    [
      { type: "read_text", target: { textRegex: "\\d+ items" } },
      "android",
      "read_text text=/\\d+ items/",
    ],
    [
      { type: "click", target: { className: "android.widget.EditText", index: 2 } },
      "android",
      "click android.widget.EditText[2]",
    ],
    [
      { type: "click", target: { id: "star", within: { contentDescription: "Task 5" } } },
      "android",
      "click ~Task 5 >> id=star",
    ],
    [{ type: "click", target: { point: { x: 5, y: 6 } } }, "android", "click (5, 6)"],
    [
      {
        type: "type",
        target: {
          contentDescription: "input-email",
          id: "field",
          index: 0,
          alternatives: [{ contentDescription: "input-email" }, { id: "field", index: 0 }],
        },
      },
      "android",
      "type ~input-email",
    ],
    [{ type: "click", target: { testId: "go", id: "go-btn" } }, "web", "click [data-testid=go]"],
    [{ type: "click", target: { id: "go-btn" } }, "web", "click #go-btn"],
    [{ type: "click", target: { text: "Remove", index: 1 } }, "web", 'click "Remove" >> nth=1'],
    [
      { type: "click", target: { textRegex: "Custom selector.*" } },
      "web",
      "click text=/Custom selector.*/",
    ],
    [
      {
        type: "type",
        target: {
          testId: "field",
          ariaLabel: "Email",
          index: 0,
          alternatives: [{ ariaLabel: "Email" }, { testId: "field", index: 0 }],
        },
      },
      "web",
      'type [aria-label="Email"]',
    ],
    // a trail's childOf: the scope the lookup stays in, row anchors as Android shows them
    [
      { type: "click", target: { text: "Add", within: { texts: ["Banana"] } } },
      "web",
      'click row("Banana") >> "Add"',
    ],
    [
      { type: "click", target: { text: "Add", within: { texts: ["Banana"] } } },
      "android",
      'click row("Banana") >> text="Add"',
    ],
    [
      { type: "click", target: { text: "Add", index: 1, within: { texts: ["Kiwi", "Fruits"] } } },
      "web",
      'click row("Kiwi") row("Fruits") >> "Add" >> nth=1',
    ],
    [
      { type: "click", target: { text: "Add", within: { id: "list" } } },
      "web",
      'click #list >> "Add"',
    ],
    [
      { type: "click", target: { testId: "buy", within: { testId: "deal-card", id: "deal" } } },
      "web",
      'click #deal[data-testid="deal-card"] >> [data-testid=buy]',
    ],
    [
      { type: "type", target: { id: "qty", within: { ariaLabel: "Cart" } } },
      "web",
      'type [aria-label="Cart"] >> #qty',
    ],
    [
      {
        type: "click",
        target: {
          text: "Add",
          alternatives: [{ text: "Add", within: { texts: ["Banana"] } }, {
            cssPath: "li > button",
          }],
        },
      },
      "web",
      'click row("Banana") >> "Add"',
    ],
  ];
  for (const [action, platform, expected] of cases) {
    assertEquals(describeAction(action, platform), expected);
  }
});
