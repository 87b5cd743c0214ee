"use client";
// The editing loop every builder editor shares: load the draft, keep local edits, autosave the
// changed fields (debounced) with `expectedUpdatedAt`, and stop on a conflict so the person
// learns that someone else changed the draft instead of overwriting it. Edits the server has
// not taken (refused, e.g. an invalid flow, or not sent yet) are kept in this browser's
// localStorage per item and brought back when the editor opens again.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useUnsavedChanges } from "@/components/console/unsaved-changes";
import { schemaProblems } from "@/components/console/use-zod-form";
import { AgentPatch, AppPatch, FlowPatch } from "@/schemas/builder/builder";
import { errorMessage, useTRPC } from "@/lib/trpc";

export type KindPlural = "agents" | "flows" | "apps";
export const ONE = { agents: "agent", flows: "flow", apps: "app" } as const;
export const ID_KEY = { agents: "agentId", flows: "flowId", apps: "appId" } as const;
/** The schema each kind's draft edits are checked against before they are sent, as the API checks them. */
const PATCH_SCHEMA = { agents: AgentPatch, flows: FlowPatch, apps: AppPatch } as const;

// The three kinds' routers come from one generic factory (server/trpc/routers/builder/builder.ts), so their
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

/**
 * The changed fields that the API's schema would refuse (an emptied name, a text over its bound)
 * are held back, as `holdBack`'s problems are: kept here, said beside the editor, not sent.
 */
function schemaHoldBack(kind: KindPlural, changes: Doc): SaveProblem | null {
  const [first, ...more] = schemaProblems(PATCH_SCHEMA[kind], changes);
  if (!first) return null;
  return {
    message: first,
    heldBack: true,
    ...(more.length > 0 ? { feedback: more.map((message) => ({ message })) } : {}),
  };
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

  /** The document as edited here (write form). */
  const [doc, setDoc] = useState<Doc | null>(null);
  /** The item as the server last answered (read form). */
  const [view, setView] = useState<Doc | null>(null);
  /** The document as the server holds it (write form), and the updatedAt it holds it at. */
  const [saved, setSaved] = useState<Doc | null>(null);
  const [updatedAt, setUpdatedAt] = useState<string | null>(null);
  const [activity, setActivity] = useState<"idle" | "saving" | "conflict">("idle");
  /** The server's refusal, and the very document it refused (not sent again until edited). */
  const [refusal, setRefusal] = useState<{ doc: Doc; problem: SaveProblem } | null>(null);
  const [conflictBy, setConflictBy] = useState<string | null>(null);
  /** When the editor opened on edits kept in this browser, when they were kept. */
  const [restoredFrom, setRestoredFrom] = useState<string | null>(null);
  const { mutateAsync: patchDraft } = useMutation(procs.patchDraft.mutationOptions()) as {
    mutateAsync: (input: Doc) => Promise<unknown>;
  };

  const adopt = useCallback(
    (fresh: Doc) => {
      setView(fresh);
      setUpdatedAt(fresh.updatedAt);
      setSaved(toWrite(fresh));
      setDoc(toWrite(fresh));
      setActivity("idle");
      setRefusal(null);
      setConflictBy(null);
    },
    [toWrite],
  );

  // Opening: the draft as loaded, with the edits this browser kept of it on top.
  const loaded = (draftQuery.data as Doc | undefined)?.[ONE[kind]];
  if (loaded && doc === null) {
    adopt(loaded);
    const kept = readUnsaved(kind, id);
    const restored = kept ? { ...toWrite(loaded), ...kept.doc } : null;
    if (kept && restored && Object.keys(changedFields(toWrite(loaded), restored)).length > 0) {
      setDoc(restored);
      setRestoredFrom(kept.savedAt);
    }
  }

  const changes = useMemo(() => (doc && saved ? changedFields(saved, doc) : {}), [doc, saved]);
  const unsaved = Object.keys(changes).length > 0;
  const held = useMemo(
    () => (doc && unsaved ? (holdBack?.(doc, changes) ?? schemaHoldBack(kind, changes)) : null),
    [doc, unsaved, changes, holdBack, kind],
  );
  const refused = refusal !== null && refusal.doc === doc;
  // Back to what the server holds (an error undone by hand included): nothing is refused any more,
  // and nothing was brought back from this browser.
  if (doc !== null && !unsaved) {
    if (restoredFrom !== null) setRestoredFrom(null);
    if (refusal !== null && activity === "idle") setRefusal(null);
  }
  const state: SaveState =
    activity === "conflict"
      ? "conflict"
      : activity === "saving"
        ? "saving"
        : !unsaved
          ? "saved"
          : held || refused
            ? "error"
            : "pending";
  // A refusal stays shown while the person edits on, until the server takes the edits.
  const problem = activity === "conflict" ? null : (held ?? refusal?.problem ?? null);

  // What the server has not taken stays in the browser until it does.
  useEffect(() => {
    if (!doc || !saved) return;
    writeUnsaved(kind, id, unsaved ? { doc, baseUpdatedAt: updatedAt, savedAt: new Date().toISOString() } : null);
  }, [doc, saved, unsaved, updatedAt, kind, id]);

  // Leaving the page (a link, a reload, another site) while edits are not saved asks first.
  useUnsavedChanges(state !== "saved", { keptInBrowser: true });

  /** Sends the changed fields against the updatedAt they were made on; a conflict stops autosave. */
  const send = async (sent: Doc, sentChanges: Doc) => {
    setActivity("saving");
    try {
      const result = (await patchDraft({
        ...input,
        ...sentChanges,
        expectedUpdatedAt: updatedAt ?? undefined,
      })) as Doc;
      const fresh = result[ONE[kind]] as Doc;
      setUpdatedAt(fresh.updatedAt);
      setSaved((current) => ({ ...current, ...sentChanges }));
      setView(fresh);
      setRefusal(null);
      setActivity("idle");
    } catch (error) {
      const { code, feedback } = appErrorOf(error);
      if (code === "conflict") {
        const latest = (await queryClient
          .fetchQuery({ ...draftOptions, staleTime: 0 })
          .catch(() => null)) as Doc | null;
        setConflictBy(latest?.[ONE[kind]]?.lastChange?.by ?? null);
        setActivity("conflict");
      } else {
        setRefusal({ doc: sent, problem: { message: errorMessage(error), feedback } });
        setActivity("idle");
      }
    }
  };
  // The timer calls the latest render's `send` (its updatedAt and input), so a refresh of the
  // draft's state (after publishing) does not restart the wait. Next.js's React has no useEffectEvent.
  const latestSend = useRef(send);
  useEffect(() => {
    latestSend.current = send;
  });

  const autosave = state === "pending";
  useEffect(() => {
    if (!autosave || !doc || !saved) return;
    const timer = setTimeout(() => void latestSend.current(doc, changedFields(saved, doc)), AUTOSAVE_MS);
    return () => clearTimeout(timer);
  }, [autosave, doc, saved]);

  /** Throws away local edits and loads the draft as it is now (after a conflict). */
  const reload = useCallback(async () => {
    const latest = (await queryClient.fetchQuery({ ...draftOptions, staleTime: 0 })) as Doc;
    adopt(latest[ONE[kind]]);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [adopt, queryClient, id, kind]);

  /** After publish or deploy: the item's state (and updatedAt) changed on the server. */
  const refreshState = useCallback(async () => {
    const latest = ((await queryClient.fetchQuery({ ...draftOptions, staleTime: 0 })) as Doc)[ONE[kind]] as Doc;
    setUpdatedAt(latest.updatedAt);
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
