import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { makeNode, type Screen, type UiNode } from "../../../engine/screens/ui_node.ts";
import {
  atRegisteredPoint,
  checkRecordedName,
  fieldLabel,
  layoutOffset,
  nameStillShown,
} from "../../../engine/playback/coordinates.ts";

const TV = "android.widget.TextView";
const ET = "android.widget.EditText";

function screen(children: UiNode[]): Screen {
  const root = makeNode({
    className: "android.widget.FrameLayout",
    bounds: { x: 0, y: 0, w: 1080, h: 2340 },
    children,
  });
  return { platform: "android", format: "uiautomator2", root, width: 1080, height: 2340 };
}

Deno.test("layoutOffset: landmarks moved together give their offset; apart, too few or too large give none", () => {
  const a = { x: 60, y: 490, w: 700, h: 120 };
  const b = { x: 700, y: 1130, w: 240, h: 80 };
  const s = screen([
    makeNode({ className: TV, bounds: a }),
    makeNode({ className: TV, bounds: b }),
  ]);
  const moved = [
    { recorded: { x: 410, y: 330 }, bounds: a },
    { recorded: { x: 820, y: 950 }, bounds: b },
  ];
  assertEquals(layoutOffset(s, moved), { x: 0, y: 220 });
  // one landmark is no registration; the same element twice is one landmark
  assertEquals(layoutOffset(s, [moved[0]!]), undefined);
  assertEquals(layoutOffset(s, [moved[0]!, { ...moved[0]! }]), undefined);
  // parts that moved differently (one stayed, one moved): no offset
  const apart = [moved[0]!, { recorded: { x: 820, y: 1170 }, bounds: b }];
  assertEquals(layoutOffset(s, apart), undefined);
  // landmarks of another screen (no node with their box here) register nothing
  const elsewhere = [{ recorded: { x: 10, y: 10 }, bounds: { x: 0, y: 0, w: 20, h: 20 } }];
  assertEquals(layoutOffset(s, [...elsewhere, moved[0]!]), undefined);
  // a point is at the registered place only inside the element the offset puts it in
  const button = { x: 60, y: 660, w: 400, h: 140 };
  assertEquals(atRegisteredPoint(s, button, { x: 260, y: 510 }, moved), { x: 0, y: 220 });
  assertEquals(atRegisteredPoint(s, button, { x: 540, y: 775 }, moved), undefined);
});

Deno.test("fieldLabel: fields each after a label are named by it; a lone field after a title or fields with hints are not", () => {
  const label = (text: string, y: number) =>
    makeNode({ className: TV, text, bounds: { x: 48, y, w: 600, h: 60 } });
  const field = (y: number, text?: string) =>
    makeNode({ className: ET, ...(text ? { text } : {}), bounds: { x: 48, y, w: 984, h: 140 } });
  const name = field(310);
  const address = field(550);
  const form = screen([label("Full name", 240), name, label("Address", 480), address]);
  assertEquals(fieldLabel(form.root, name), "Full name");
  assertEquals(fieldLabel(form.root, address), "Address");
  // the checks see the label: another field there is refused, its own label accepted
  assert(checkRecordedName(form, address.bounds, ["Full name"]) !== true);
  assertEquals(checkRecordedName(form, name.bounds, ["Full name"]), true);
  assert(nameStillShown(form, ["full  name"]));
  assert(!nameStillShown(form, ["Email"]));
  // a title before the first field, the second after the first: no labels
  const recipient = field(300, "Recipient");
  const hints = screen([
    makeNode({ className: TV, text: "Send a transfer", bounds: { x: 60, y: 160, w: 900, h: 90 } }),
    recipient,
    field(480, "Amount"),
  ]);
  assertEquals(fieldLabel(hints.root, recipient), undefined);
  // one field after its label: not a form of labelled fields
  const lone = field(310);
  assertEquals(fieldLabel(screen([label("Email", 240), lone]).root, lone), undefined);
});
