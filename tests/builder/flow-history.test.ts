// The flow editor's undo/redo (src/components/builder/flow-history.ts): each edit is one step,
// typing in one field is one step, a new edit clears what was undone, and the history is bounded.
import { describe, expect, it } from "vitest";
import { MAX_HISTORY, emptyHistory, record, redo, undo, type History } from "@/components/builder/flow-history";

/** Applies edits the way the editor does: record the state before, then move to the next one. */
function edit(start: { history: History<string>; state: string }, next: string, group?: string) {
  return { history: record(start.history, start.state, group), state: next };
}

describe("flow editor history", () => {
  it("undoes and redoes edits in order, and says when there is nothing left", () => {
    let at = { history: emptyHistory<string>(), state: "a" };
    expect(undo(at.history, at.state)).toBeNull();
    at = edit(at, "b");
    at = edit(at, "c");
    at = undo(at.history, at.state)!;
    expect(at.state).toBe("b");
    at = undo(at.history, at.state)!;
    expect(at.state).toBe("a");
    expect(undo(at.history, at.state)).toBeNull();
    at = redo(at.history, at.state)!;
    expect(at.state).toBe("b");
    at = redo(at.history, at.state)!;
    expect(at.state).toBe("c");
    expect(redo(at.history, at.state)).toBeNull();
  });

  it("makes consecutive edits of one field one step, and a different field another", () => {
    let at = { history: emptyHistory<string>(), state: "" };
    for (const text of ["H", "He", "Hel", "Hello"]) at = edit(at, text, "node 1 template");
    at = edit(at, "Hello!", "node 2 query");
    at = undo(at.history, at.state)!;
    expect(at.state).toBe("Hello");
    at = undo(at.history, at.state)!;
    expect(at.state).toBe("");
  });

  it("starts a new step when the same field is edited again after an undo", () => {
    let at = { history: emptyHistory<string>(), state: "" };
    at = edit(at, "a", "field");
    at = undo(at.history, at.state)!;
    at = edit(at, "b", "field");
    at = edit(at, "bc", "field");
    at = undo(at.history, at.state)!;
    expect(at.state).toBe("");
  });

  it("forgets what was undone once something else is edited", () => {
    let at = { history: emptyHistory<string>(), state: "a" };
    at = edit(at, "b");
    at = undo(at.history, at.state)!;
    at = edit(at, "x");
    expect(redo(at.history, at.state)).toBeNull();
    expect(undo(at.history, at.state)!.state).toBe("a");
  });

  it("keeps at most MAX_HISTORY steps, dropping the oldest", () => {
    let at = { history: emptyHistory<number>(), state: 0 };
    for (let n = 1; n <= MAX_HISTORY + 50; n++) at = { history: record(at.history, at.state), state: n };
    expect(at.history.past).toHaveLength(MAX_HISTORY);
    let steps = 0;
    for (let back = undo(at.history, at.state); back; back = undo(back.history, back.state)) {
      at = back;
      steps++;
    }
    expect(steps).toBe(MAX_HISTORY);
    expect(at.state).toBe(50);
  });
});
