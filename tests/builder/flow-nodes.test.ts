// The edits the flow editor's canvas and node list share (src/components/builder/flow-nodes.ts):
// connections are written to the nodes' own data.next, places to data.position, and the result
// is what the server's graph rules judge.
import { describe, expect, it } from "vitest";
import {
  addNode,
  connect,
  insertAt,
  nodeTitle,
  disconnect,
  nextIds,
  placeBelow,
  placeNodes,
  placesOf,
  removeNode,
} from "@/components/builder/flow-nodes";
import type { FlowNode } from "@/schemas/builder/builder";
import { flowFeedback, upstreamNodeIds } from "@/schemas/builder/flow-graph";

const node = (id: string, type: string, data: Record<string, unknown> = {}): FlowNode => ({
  id,
  type,
  data,
  blocks: [],
});
const chain = () => [
  node("start", "trigger_start"),
  node("a", "template", { template: "a" }),
  node("b", "template", { template: "b" }),
  node("out", "output", { value: "v" }),
];
const MODELS = new Set(["atrium-offline"]);

describe("flow node edits", () => {
  it("connecting keeps the connections a node already has, list order included, and writes data.next", () => {
    const nodes = connect(chain(), 0, 2);
    expect(nodes[0]!.data.next).toEqual(["a", "b"]);
    expect(nextIds(nodes, 0)).toEqual(["a", "b"]);
    expect(connect(nodes, 0, 2)).toBe(nodes);
    expect(flowFeedback(nodes, MODELS)).toEqual([]);
  });

  it("a connection back up the chain is a cycle the graph rules name", () => {
    const nodes = connect(chain(), 2, 1);
    expect(nodes[2]!.data.next).toEqual(["out", "a"]);
    expect(flowFeedback(nodes, MODELS).map((f) => f.nodeId)).toEqual(["a", "b"]);
  });

  it("disconnecting the list-order connection ends the run there (an empty data.next)", () => {
    const nodes = disconnect(chain(), 1, 2);
    expect(nodes[1]!.data.next).toEqual([]);
    expect(nextIds(nodes, 1)).toEqual([]);
    expect(disconnect(connect(chain(), 0, 2), 0, 1)[0]!.data.next).toBe("b");
  });

  it("removing a node removes the connections to it", () => {
    const nodes = removeNode(connect(chain(), 0, 2), 2);
    expect(nodes.map((n) => n.id)).toEqual(["start", "a", "out"]);
    expect(nodes[0]!.data.next).toBe("a");
  });

  it("lays nodes out in rows by steps from the start, and once placed they stay where they are", () => {
    const fanOut = connect(chain(), 0, 2);
    const places = placesOf(fanOut);
    expect(places[0]!.y).toBeLessThan(places[1]!.y);
    expect(places[1]!.y).toBe(places[2]!.y);
    const placed = placeNodes(fanOut, new Map([[3, { x: 10.6, y: -20.2 }]]));
    expect(placed.map((n) => n.data.position)).toEqual([...places.slice(0, 3), { x: 11, y: -20 }]);
    expect(placesOf(removeNode(placed, 1))).toEqual([places[0], places[2], { x: 11, y: -20 }]);
    expect(placeNodes(placed)).toEqual(placed);
  });

  it("places a new canvas node below the lowest one, within the bound the server checks", () => {
    const placed = placeNodes(chain(), new Map([[3, { x: 5, y: 99_990 }]]));
    const added = addNode(placed, "llm", placeBelow(placed));
    expect(added[4]).toEqual({
      id: "llm",
      type: "llm",
      data: { title: "LLM", position: { x: 5, y: 100_000 } },
      blocks: [],
    });
    expect(addNode(added, "llm")[5]).toMatchObject({ id: "llm2", data: { title: "LLM 2" } });
  });
});

describe("the variable picker's upstream outputs", () => {
  it("offers only the nodes that run before a node, and a picked reference passes the graph rules", () => {
    const nodes = chain();
    expect(upstreamNodeIds(nodes, 0)).toEqual([]);
    expect(upstreamNodeIds(nodes, 2)).toEqual(["start", "a"]);
    // With `next` running "b" before "a", "a" is no longer offered to "b", and "b" is to "a".
    const next: Record<string, string> = { start: "b", b: "a", a: "out" };
    const reordered = nodes.map((n) => (next[n.id] ? { ...n, data: { ...n.data, next: next[n.id] } } : n));
    expect(upstreamNodeIds(reordered, 2)).toEqual(["start"]);
    expect(upstreamNodeIds(reordered, 1)).toEqual(["start", "b"]);
    const picked = nodes.map((n) =>
      n.id === "out"
        ? {
            ...n,
            data: {
              value: `${upstreamNodeIds(nodes, 3)
                .map((id) => `{{nodes.${id}.output}}`)
                .join(" ")}`,
            },
          }
        : n,
    );
    expect(flowFeedback(picked, MODELS)).toEqual([]);
  });
});

describe("node titles", () => {
  it("shows the title a person wrote, else the id made readable, never snake_case", () => {
    expect(nodeTitle(node("search_docs", "knowledge_search", { title: "  Search the handbook " }))).toBe(
      "Search the handbook",
    );
    expect(nodeTitle(node("search_docs", "knowledge_search"))).toBe("Search docs");
    expect(nodeTitle(node("draftReply2", "llm", { title: "" }))).toBe("Draft reply 2");
    expect(nodeTitle(node("___", "template"))).toBe("Template");
  });

  it("numbers new nodes by the titles already shown, and the titles pass the graph rules", () => {
    let nodes = addNode([], "trigger_start");
    nodes = addNode(nodes, "knowledge_search");
    nodes = addNode(nodes, "knowledge_search");
    expect(nodes.map(nodeTitle)).toEqual(["Start", "Knowledge search", "Knowledge search 2"]);
    expect(flowFeedback(nodes, MODELS, { allowIncomplete: true })).toEqual([]);
  });
});

describe("inserting a variable", () => {
  it("goes where the cursor is, replaces a selection, and appends when the field was never focused", () => {
    const reference = "{{nodes.search.output}}";
    expect(insertAt("Answer from  please", reference, 12, 12)).toEqual({
      text: `Answer from ${reference} please`,
      caret: 12 + reference.length,
    });
    expect(insertAt("Use THIS now", reference, 4, 8).text).toBe(`Use ${reference} now`);
    expect(insertAt("Hi ", reference, null, null)).toEqual({ text: `Hi ${reference}`, caret: 3 + reference.length });
    expect(insertAt("short", reference, 99, 120).text).toBe(`short${reference}`);
  });
});
