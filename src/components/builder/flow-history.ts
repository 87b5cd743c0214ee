// Undo and redo for the flow editor: a bounded list of earlier states and of undone ones. Pure, so
// the canvas, the node list and the keyboard share one history (tests/builder/flow-history.test.ts).

/** How many steps back a builder can go; older states are dropped. */
export const MAX_HISTORY = 100;

export interface History<T> {
  /** Earlier states, oldest first. */
  past: T[];
  /** Undone states, the next one to redo last. */
  future: T[];
  /** The group of the last recorded change: typing in one field is one step, not one per key. */
  group: string | null;
}

export function emptyHistory<T>(): History<T> {
  return { past: [], future: [], group: null };
}

/**
 * Records a change made from `before`. A change in the same group as the previous one joins its
 * step (its `before` is already recorded); any change clears what was undone.
 */
export function record<T>(history: History<T>, before: T, group?: string): History<T> {
  if (group !== undefined && group === history.group) return { ...history, future: [] };
  return { past: [...history.past, before].slice(-MAX_HISTORY), future: [], group: group ?? null };
}

/** The state to go back to and the history after it, or null when there is nothing to undo. */
export function undo<T>(history: History<T>, present: T): { history: History<T>; state: T } | null {
  const state = history.past.at(-1);
  if (state === undefined) return null;
  return { state, history: { past: history.past.slice(0, -1), future: [...history.future, present], group: null } };
}

/** The state undone last and the history after redoing it, or null when there is nothing to redo. */
export function redo<T>(history: History<T>, present: T): { history: History<T>; state: T } | null {
  const state = history.future.at(-1);
  if (state === undefined) return null;
  return {
    state,
    history: { past: [...history.past, present].slice(-MAX_HISTORY), future: history.future.slice(0, -1), group: null },
  };
}
