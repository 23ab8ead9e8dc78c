import { assertEquals } from "../../_fixtures/assert.ts";
import {
  type AXNodeLike,
  type DomSnapshotLike,
  joinChromeHierarchy,
} from "../../../engine/screens/chrome_join.ts";

const PAGE = {
  url: "http://127.0.0.1:8000/",
  viewport: { width: 800, height: 600 },
  devicePixelRatio: 1,
  scroll: { x: 0, y: 0 },
};

/** A tiny DOM: document > html > body > [div#list (overflow auto) > li, li], button (in x-card's shadow), input. */
function snapshot(): DomSnapshotLike {
  const strings = [
    "#document",
    "HTML",
    "BODY",
    "DIV",
    "id",
    "list",
    "LI",
    "X-CARD",
    "BUTTON",
    "data-testid",
    "go",
    "class",
    "css-1a2b3c4 primary",
    "INPUT",
    "type",
    "password",
    "auto",
    "visible",
  ];
  //            0   1  2  3  4  5  6  7  8
  // nodes:     doc html body div li li xcard button input
  return {
    strings,
    documents: [{
      nodes: {
        parentIndex: [-1, 0, 1, 2, 3, 3, 2, 6, 2],
        nodeType: [9, 1, 1, 1, 1, 1, 1, 1, 1],
        nodeName: [0, 1, 2, 3, 6, 6, 7, 8, 13],
        backendNodeId: [1, 2, 3, 4, 5, 6, 7, 8, 9],
        attributes: [[], [], [], [4, 5], [], [], [], [9, 10, 11, 12], [14, 15]],
        shadowRootType: { index: [7], value: [17] },
        isClickable: { index: [7] },
      },
      layout: {
        nodeIndex: [1, 2, 3, 4, 5, 6, 7, 8],
        bounds: [
          [0, 0, 800, 600],
          [0, 0, 800, 600],
          [0, 0, 800, 100], // div#list
          [0, 0, 800, 60],
          [0, 60, 800, 60], // spills out of the list: it scrolls
          [0, 100, 800, 40],
          [0, 100, 80, 30],
          [0, 150, 200, 30],
        ],
        styles: [[17, 17], [17, 17], [16, 16], [17, 17], [17, 17], [17, 17], [17, 17], [17, 17]],
      },
    }],
  };
}

function ax(
  nodeId: string,
  role: string,
  extra: Partial<AXNodeLike> = {},
): AXNodeLike {
  return { nodeId, ignored: false, role: { value: role }, ...extra };
}

Deno.test("joinChromeHierarchy() keeps meaningful AX nodes with DOM attributes, paths and boxes", () => {
  const axNodes: AXNodeLike[] = [
    ax("1", "RootWebArea", { childIds: ["2"], backendDOMNodeId: 1, name: { value: "Page" } }),
    ax("2", "none", { ignored: true, childIds: ["3", "6", "8"], backendDOMNodeId: 3 }),
    ax("3", "list", { parentId: "2", childIds: ["4", "5"], backendDOMNodeId: 4 }),
    ax("4", "listitem", { parentId: "3", childIds: ["4t"], backendDOMNodeId: 5 }),
    ax("4t", "InlineTextBox", { parentId: "4" }),
    ax("5", "listitem", { parentId: "3", backendDOMNodeId: 6 }),
    ax("6", "generic", { parentId: "2", childIds: ["7"], backendDOMNodeId: 7 }),
    ax("7", "button", {
      parentId: "6",
      backendDOMNodeId: 8,
      name: { value: "Go" },
      properties: [{ name: "focusable", value: { value: true } }, {
        name: "disabled",
        value: { value: false },
      }],
    }),
    ax("8", "textbox", { parentId: "2", childIds: ["9"], backendDOMNodeId: 9 }),
    ax("9", "generic", { parentId: "8", backendDOMNodeId: 999 }), // the input's UA editor
  ];
  const h = joinChromeHierarchy({ axNodes, snapshot: snapshot() }, PAGE);
  assertEquals(h.nodes.map((n) => n.role), [
    "RootWebArea",
    "list",
    "listitem",
    "listitem",
    "generic",
    "button",
    "textbox",
  ]);
  assertEquals(h.nodes[0]!.children, [1, 4, 6]); // the ignored body is lifted away
  const list = h.nodes[1]!;
  assertEquals([list.cssPath, list.scrollable, list.dom], ["#list", true, { id: "list" }]);
  assertEquals(h.nodes[2]!.cssPath, "#list > li:nth-of-type(1)");
  const button = h.nodes[5]!;
  assertEquals(button.cssPath, "body > x-card >>> button.primary");
  assertEquals(button.dom, { "data-testid": "go", class: "css-1a2b3c4 primary" });
  assertEquals([button.clickable, button.states, button.bounds], [true, ["focusable"], [
    0,
    100,
    80,
    30,
  ]]);
  assertEquals(h.nodes[6]!.children, undefined); // no UA filler child
  assertEquals(h.nodes[6]!.dom, { type: "password" });
});

/** doc > html > body > header > [span[data-testid=cart-count] > "3", span[data-testid=multi] > ["a", b > "b"], span#gone (display: none) > "x", div#wrap > "w"]. */
function holderSnapshot(): DomSnapshotLike {
  const strings = [
    "#document",
    "HTML",
    "BODY",
    "HEADER",
    "SPAN",
    "#text",
    "data-testid",
    "cart-count",
    "multi",
    "B",
    "DIV",
    "id",
    "wrap",
    "gone",
  ];
  const laidOut = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13]; // not the hidden span 10 nor its text 11
  return {
    strings,
    documents: [{
      nodes: {
        parentIndex: [-1, 0, 1, 2, 3, 4, 3, 6, 6, 8, 3, 10, 3, 12],
        nodeType: [9, 1, 1, 1, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3],
        nodeName: [0, 1, 2, 3, 4, 5, 4, 5, 9, 5, 4, 5, 10, 5],
        backendNodeId: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
        attributes: [[], [], [], [], [6, 7], [], [6, 8], [], [], [], [11, 13], [], [11, 12], []],
      },
      layout: {
        nodeIndex: laidOut,
        bounds: laidOut.map((i) => [i * 10, 0, 10, 20]),
      },
    }],
  };
}

Deno.test("joinChromeHierarchy() keeps elements with a test id or an id that the AX tree prunes or ignores", () => {
  const axNodes: AXNodeLike[] = [
    ax("1", "RootWebArea", { childIds: ["2"], backendDOMNodeId: 1 }),
    ax("2", "none", { ignored: true, parentId: "1", childIds: ["3"], backendDOMNodeId: 3 }),
    ax("3", "banner", { parentId: "2", childIds: ["4", "5", "6", "9", "7"], backendDOMNodeId: 4 }),
    ax("4", "StaticText", { parentId: "3", name: { value: "3" }, backendDOMNodeId: 6 }),
    ax("5", "StaticText", { parentId: "3", name: { value: "a" }, backendDOMNodeId: 8 }),
    ax("6", "StaticText", { parentId: "3", name: { value: "b" }, backendDOMNodeId: 10 }),
    ax("9", "none", { ignored: true, parentId: "3", backendDOMNodeId: 11 }), // display: none
    ax("7", "none", { ignored: true, parentId: "3", childIds: ["8"], backendDOMNodeId: 13 }),
    ax("8", "StaticText", { parentId: "7", name: { value: "w" }, backendDOMNodeId: 14 }),
  ];
  const h = joinChromeHierarchy({ axNodes, snapshot: holderSnapshot() }, PAGE);
  const summary = h.nodes.map((n) => [n.role, n.dom ?? null, n.text ?? n.name ?? null]);
  assertEquals(summary, [
    ["RootWebArea", null, null],
    ["banner", null, null],
    ["generic", { "data-testid": "cart-count" }, "3"], // pruned span added, its text folded in
    ["generic", { "data-testid": "multi" }, null], // two DOM children: the texts stay children
    ["StaticText", null, "a"],
    ["StaticText", null, "b"], // under <b>, lifted into the same span
    ["generic", { id: "wrap" }, "w"], // ignored AX node of an element with an id
  ]);
  assertEquals(h.nodes[1]!.children, [2, 3, 6]);
  assertEquals(h.nodes[3]!.children, [4, 5]);
  assertEquals(h.nodes[2]!.children, undefined);
  const span = h.nodes[2]!;
  assertEquals([span.tag, span.backendNodeId, span.bounds], ["span", 5, [40, 0, 10, 20]]);
  assertEquals(span.cssPath, "body > header > span:nth-of-type(1)");
});
