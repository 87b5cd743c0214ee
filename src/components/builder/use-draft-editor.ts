"use client";
// The editing loop every builder editor shares: load the draft, keep local edits, autosave the
// changed fields (debounced) with `expectedUpdatedAt`, and stop on a conflict so the person
// learns that someone else changed the draft instead of overwriting it. Edits the server has
// not taken (refused, e.g. an invalid flow, or not sent yet) are kept in this browser's
// localStorage per item and brought back when the editor opens again.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { useUnsavedChanges } from "@/components/console/unsaved-changes";
import { errorMessage, useTRPC } from "@/lib/trpc";

export type KindPlural = "agents" | "flows" | "apps";
export const ONE = { agents: "agent", flows: "flow", apps: "app" } as const;
export const ID_KEY = { agents: "agentId", flows: "flowId", apps: "appId" } as const;

// The three kinds' routers come from one generic factory (server/trpc/routers/builder.ts), so their
// per-kind documents and procedures cannot be named here; the editors share these loose types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type Doc = Record<string, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type KindProcedures = any;
export type SaveState = "saved" | "pending" | "saving" | "conflict" | "error";

export interface SaveProblem {
  message: string;
  feedback?: { nodeId?: string; message: string }[];
  /** Not sent: the editor knows the server would refuse these edits. */
  heldBack?: boolean;
}

/** The procedures of one kind; the three routers are built by one factory, so they match. */
export function useKindProcedures(kind: KindPlural): KindProcedures {
  const trpc = useTRPC();
  return (trpc as unknown as Record<KindPlural, KindProcedures>)[kind];
}

export function appErrorOf(error: unknown): { code?: string; feedback?: SaveProblem["feedback"] } {
  const appError = (error as { data?: { appError?: { code?: string; feedback?: SaveProblem["feedback"] } } } | null)
    ?.data?.appError;
  return { code: appError?.code, feedback: appError?.feedback };
}

const AUTOSAVE_MS = 700;

/** Edits of one item not yet taken by the server, as kept in this browser. */
interface UnsavedCopy {
  doc: Doc;
  /** The draft's updatedAt the edits were made on. */
  baseUpdatedAt: string | null;
  savedAt: string;
}

export function unsavedKey(kind: KindPlural, id: string): string {
  return `atrium.unsaved.${kind}.${id}`;
}

function readUnsaved(kind: KindPlural, id: string): UnsavedCopy | null {
  try {
    const raw = window.localStorage.getItem(unsavedKey(kind, id));
    return raw ? (JSON.parse(raw) as UnsavedCopy) : null;
  } catch {
    return null;
  }
}

function writeUnsaved(kind: KindPlural, id: string, copy: UnsavedCopy | null): void {
  try {
    if (copy) window.localStorage.setItem(unsavedKey(kind, id), JSON.stringify(copy));
    else window.localStorage.removeItem(unsavedKey(kind, id));
  } catch {
    // A full or disabled storage only loses the browser copy; the editor keeps working.
  }
}

function changedFields(saved: Doc, current: Doc): Doc {
  const changes: Doc = {};
  for (const key of Object.keys(current))
    if (JSON.stringify(saved[key]) !== JSON.stringify(current[key])) changes[key] = current[key];
  return changes;
}

/** `holdBack` names what the server would refuse in a document, so it is kept here and not sent. */
export function useDraftEditor(
  kind: KindPlural,
  id: string,
  toWrite: (view: Doc) => Doc,
  holdBack?: (doc: Doc, changes: Doc) => SaveProblem | null,
) {
  const procs = useKindProcedures(kind);
  const queryClient = useQueryClient();
  const input = { [ID_KEY[kind]]: id };
  const draftOptions = procs.getDraft.queryOptions(input);
  const draftQuery = useQuery({ ...draftOptions, staleTime: 0 });

  const [doc, setDoc] = useState<Doc | null>(null);
  const [view, setView] = useState<Doc | null>(null);
  const [state, setState] = useState<SaveState>("saved");
  const [problem, setProblem] = useState<SaveProblem | null>(null);
  const [conflictBy, setConflictBy] = useState<string | null>(null);
  /** When the editor opened on edits kept in this browser, when they were kept. */
  const [restoredFrom, setRestoredFrom] = useState<string | null>(null);
  const saved = useRef<Doc | null>(null);
  const updatedAt = useRef<string | null>(null);
  const failed = useRef<Doc | null>(null);
  const patch = useMutation(procs.patchDraft.mutationOptions()) as { mutateAsync: (input: Doc) => Promise<unknown> };

  const adopt = useCallback(
    (fresh: Doc) => {
      setView(fresh);
      updatedAt.current = fresh.updatedAt;
      saved.current = toWrite(fresh);
      setDoc(toWrite(fresh));
      setState("saved");
      setProblem(null);
      setConflictBy(null);
      failed.current = null;
    },
    [toWrite],
  );

  const loaded = (draftQuery.data as Doc | undefined)?.[ONE[kind]];
  useEffect(() => {
    if (!loaded || doc !== null) return;
    adopt(loaded);
    const kept = readUnsaved(kind, id);
    if (kept && Object.keys(changedFields(toWrite(loaded), { ...toWrite(loaded), ...kept.doc })).length > 0) {
      setDoc({ ...toWrite(loaded), ...kept.doc });
      setRestoredFrom(kept.savedAt);
    } else if (kept) {
      writeUnsaved(kind, id, null);
    }
  }, [loaded, doc, adopt, kind, id, toWrite]);

  // What the server has not taken stays in the browser until it does.
  useEffect(() => {
    if (!doc || !saved.current) return;
    const unsaved = Object.keys(changedFields(saved.current, doc)).length > 0;
    writeUnsaved(
      kind,
      id,
      unsaved ? { doc, baseUpdatedAt: updatedAt.current, savedAt: new Date().toISOString() } : null,
    );
    if (!unsaved) setRestoredFrom(null);
  }, [doc, state, kind, id]);

  // Leaving the page (a link, a reload, another site) while edits are not saved asks first.
  useUnsavedChanges(state !== "saved", { keptInBrowser: true });

  useEffect(() => {
    if (!doc || !saved.current || state === "conflict" || state === "saving" || doc === failed.current) return;
    const changes = changedFields(saved.current, doc);
    if (Object.keys(changes).length === 0) {
      // Back to what the server holds (an error undone by hand included): nothing is unsaved.
      if (state === "pending" || state === "error") {
        setProblem(null);
        setState("saved");
      }
      return;
    }
    const held = holdBack?.(doc, changes) ?? null;
    if (held) {
      failed.current = doc;
      setProblem(held);
      setState("error");
      return;
    }
    setState("pending");
    const timer = setTimeout(async () => {
      setState("saving");
      try {
        const result = (await patch.mutateAsync({
          ...input,
          ...changes,
          expectedUpdatedAt: updatedAt.current ?? undefined,
        })) as Doc;
        const fresh = result[ONE[kind]] as Doc;
        updatedAt.current = fresh.updatedAt;
        saved.current = { ...saved.current, ...changes };
        setView(fresh);
        setProblem(null);
        setState("saved");
      } catch (error) {
        const { code, feedback } = appErrorOf(error);
        if (code === "conflict") {
          const latest = (await queryClient
            .fetchQuery({ ...draftOptions, staleTime: 0 })
            .catch(() => null)) as Doc | null;
          setConflictBy(latest?.[ONE[kind]]?.lastChange?.by ?? null);
          setState("conflict");
        } else {
          failed.current = doc;
          setProblem({ message: errorMessage(error), feedback });
          setState("error");
        }
      }
    }, AUTOSAVE_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [doc, state]);

  /** Throws away local edits and loads the draft as it is now (after a conflict). */
  const reload = useCallback(async () => {
    const latest = (await queryClient.fetchQuery({ ...draftOptions, staleTime: 0 })) as Doc;
    adopt(latest[ONE[kind]]);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [adopt, queryClient, id, kind]);

  /** After publish or deploy: the item's state (and updatedAt) changed on the server. */
  const refreshState = useCallback(async () => {
    const latest = ((await queryClient.fetchQuery({ ...draftOptions, staleTime: 0 })) as Doc)[ONE[kind]] as Doc;
    updatedAt.current = latest.updatedAt;
    setView(latest);
    await queryClient.invalidateQueries({ queryKey: procs.versions.queryKey() });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [queryClient, id, kind]);

  const update = useCallback(
    (changes: Doc) => setDoc((current) => (current ? { ...current, ...changes } : current)),
    [],
  );

  /** Drops the edits kept in this browser and shows the draft as the server holds it. */
  const discardUnsaved = useCallback(() => {
    writeUnsaved(kind, id, null);
    setRestoredFrom(null);
    void reload();
  }, [kind, id, reload]);

  return {
    doc,
    view,
    update,
    state,
    problem,
    conflictBy,
    restoredFrom,
    reload,
    discardUnsaved,
    refreshState,
    loadError: draftQuery.error,
    input,
    procs,
  };
}
