import { assertEquals } from "../../tests/assert.ts";
import { describeAction, type PlaybackAction } from "./actions.ts";

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
  ];
  for (const [action, platform, expected] of cases) {
    assertEquals(describeAction(action, platform), expected);
  }
});
