"use client";
// The frame of every builder editor: save state, conflict notice, "draft differs from live",
// the publish block (publish-panel.tsx), and the versions list with a diff against the draft and "Make live".
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import {
  Button,
  ConfirmButton,
  DataTable,
  ErrorAlert,
  FormField,
  LoadMore,
  PageHeader,
  PageLoading,
  Panel,
  Select,
  useCursorList,
  When,
} from "@/components/console";
import { agoWords, changeWhat, doorWords } from "@/lib/change-words";
import { PreviewPanel } from "./preview-panel";
import { PublishPanel, type PublishCheck } from "./publish-panel";
import "./workbench.css";
import { TestsPanel } from "./tests-panel";
import { MakeLiveButton, VersionChanges } from "./version-compare";
import {
  ONE,
  useDraftEditor,
  type Doc,
  type KindPlural,
  type KindProcedures,
  type SaveProblem,
} from "./use-draft-editor";
import { fullWhen } from "@/lib/when";

/** Versions read per page (oldest first); "Load more" reads the next. */
const VERSIONS_PAGE = 100;

const SAVE_LABEL = {
  saved: "Saved",
  pending: "Unsaved changes…",
  saving: "Saving…",
  conflict: "Not saved: conflict",
  error: "Not saved (kept in this browser)",
} as const;

/** A version being compared with the draft in the versions list (the studio marks its changes on the canvas). */
export interface ComparedVersion {
  number: number;
  document: Doc;
}

export interface EditorBodyProps {
  doc: Doc;
  view: Doc;
  update: (changes: Doc) => void;
  problem: SaveProblem | null;
}

/** The parts of an editor a frame lays out: the default one is the workbench; the flow studio has its own. */
export interface EditorParts {
  body: EditorBodyProps;
  /** Published state, draft differs, save state. */
  status: ReactNode;
  /** Conflict, restored edits and refused edits. */
  alerts: ReactNode;
  /** Tests, publishing, versions and delete. */
  panels: ReactNode;
  /** The draft's save state ("saved"…), for frames that wait on it. */
  saved: boolean;
}

export function EditorShell({
  kind,
  id,
  toWrite,
  holdBack,
  publishChecks,
  frame,
  onCompare,
  children,
}: {
  kind: KindPlural;
  id: string;
  toWrite: (view: Doc) => Doc;
  holdBack?: (doc: Doc, changes: Doc) => SaveProblem | null;
  /** What this kind needs before it can be published, besides a saved draft (PublishPanel shows it). */
  publishChecks?: (doc: Doc) => PublishCheck[];
  /** Lays the parts out instead of the workbench (the flow studio). */
  frame?: (parts: EditorParts) => ReactNode;
  /** A version opened to compare with the draft, or null when none is. */
  onCompare?: (compared: ComparedVersion | null) => void;
  children: (props: EditorBodyProps) => ReactNode;
}) {
  const editor = useDraftEditor(kind, id, toWrite, holdBack);
  const { doc, view, state, problem } = editor;
  // "Agent", "Flow", "App": the page's name until the item's own has loaded.
  const kindTitle = `${ONE[kind][0]!.toUpperCase()}${ONE[kind].slice(1)}`;
  if (editor.loadError)
    return (
      <>
        <PageHeader title={`${kindTitle} not opened`} back={{ href: `/${kind}`, label: `All ${kind}` }} />
        <ErrorAlert error={editor.loadError} />
        <p className="muted">
          It may have been deleted, or the link is from another organization.{" "}
          <Link href={`/${kind}`}>Find it among all {kind}</Link>.
        </p>
      </>
    );
  if (!doc || !view) return <PageLoading title={kindTitle} />;
  const differs = view.published && view.draftDiffersFromLive;
  const status = (
    <>
      {view.published ? <span className="badge">Published</span> : <span className="badge revoked">Unpublished</span>}
      {differs && (
        <span className="badge revoked" data-testid="draft-differs">
          Draft differs from live
        </span>
      )}
      <span className="muted" data-testid="save-state" aria-live="polite">
        {SAVE_LABEL[state]}
      </span>
    </>
  );
  const body = { doc, view, update: editor.update, problem };
  const panels = (
    <>
      <TestsPanel kind={kind} id={id} />
      <PublishPanel
        kind={kind}
        input={editor.input}
        view={view}
        saved={state === "saved"}
        checks={publishChecks?.(doc) ?? []}
        onDone={editor.refreshState}
      />
      <VersionsPanel
        input={editor.input}
        procs={editor.procs}
        draft={view}
        onDone={editor.refreshState}
        onCompare={onCompare}
      />
      <DeleteItem kind={kind} input={editor.input} procs={editor.procs} />
    </>
  );
  const alerts = <EditorAlerts kind={kind} editor={editor} />;
  if (frame) return frame({ body, status, alerts, panels, saved: state === "saved" });

  return (
    <>
      <PageHeader
        title={doc.name || `Untitled ${ONE[kind]}`}
        back={{ href: `/${kind}`, label: `All ${kind}` }}
        actions={status}
      />
      <LastChange view={view} />
      {alerts}
      <Workbench
        settings={
          <>
            {children(body)}
            {panels}
          </>
        }
        preview={<PreviewPanel kind={kind} id={id} draftSaved={state === "saved"} />}
      />
    </>
  );
}

/** "Last change: Instructions edited by ana@example.com in the console, 3 minutes ago". */
export function LastChange({ view }: { view: Doc }) {
  return (
    <p className="muted" data-testid="last-change">
      Last change: {changeWhat(view.lastChange)} by {view.lastChange.by} {doorWords(view.lastChange.source)},{" "}
      <time dateTime={view.lastChange.at} title={fullWhen(view.lastChange.at)}>
        {agoWords(view.lastChange.at)}
      </time>
    </p>
  );
}

/** What stopped or changed the saving: someone else's edit, edits brought back, edits refused. */
function EditorAlerts({ kind, editor }: { kind: KindPlural; editor: ReturnType<typeof useDraftEditor> }) {
  const { state, problem } = editor;
  return (
    <>
      {state === "conflict" && (
        <ErrorAlert tone="warning" title="Someone else changed this draft">
          <p>
            {editor.conflictBy ? `${editor.conflictBy} changed it` : "It changed"} since you opened it, so your latest
            edits were not saved. Reload to see their version; your unsaved edits will be discarded.
          </p>
          <Button variant="primary" onClick={() => void editor.reload()}>
            Reload the draft
          </Button>
        </ErrorAlert>
      )}
      {editor.restoredFrom && state !== "saved" && (
        <div className="notice" role="status" data-testid="restored-edits">
          <p>
            <strong>
              Your edits from <When at={editor.restoredFrom} /> were brought back from this browser.
            </strong>{" "}
            The server did not have them
            {problem ? "; the reason is below" : ""}. They are saved as soon as the server accepts them.
          </p>
          <button type="button" onClick={editor.discardUnsaved}>
            Discard them and show the saved draft
          </button>
        </div>
      )}
      {problem && (
        <ErrorAlert testId="save-problem">
          <p>
            {problem.heldBack ? (
              <>
                <strong>Not saved yet.</strong> These edits would break the {ONE[kind]}, so they were not sent; they are
                kept in this browser until you fix them.
              </>
            ) : (
              <>
                <strong>Not saved.</strong> The server refused these edits; they are kept in this browser (not lost when
                you leave) until you fix them.
              </>
            )}
          </p>
          <strong>{problem.message}</strong>
          {problem.feedback && (
            <ul>
              {problem.feedback.map((item, index) => (
                <li key={index}>
                  {item.nodeId ? <code>{item.nodeId}</code> : null} {item.message}
                </li>
              ))}
            </ul>
          )}
        </ErrorAlert>
      )}
    </>
  );
}

/**
 * Settings beside the preview on a wide screen (the preview stays in view while the settings
 * scroll); on a phone, two tabs. Both stay mounted, so switching keeps the typed text and the transcript.
 */
function Workbench({ settings, preview }: { settings: ReactNode; preview: ReactNode }) {
  const [tab, setTab] = useState<"settings" | "preview">("settings");
  return (
    <div className="workbench" data-tab={tab}>
      <div className="workbench-tabs" role="tablist" aria-label="Editor">
        {(["settings", "preview"] as const).map((name) => (
          <button key={name} type="button" role="tab" aria-selected={tab === name} onClick={() => setTab(name)}>
            {name === "settings" ? "Edit" : "Preview"}
          </button>
        ))}
      </div>
      <div className="workbench-settings">{settings}</div>
      <aside className="workbench-preview">{preview}</aside>
    </div>
  );
}

const compared = (version: Doc): ComparedVersion => ({ number: version.number, document: version.document });

/** Deletes the item and its versions (admins and owners). */
function DeleteItem({ kind, input, procs }: { kind: KindPlural; input: Doc; procs: KindProcedures }) {
  const router = useRouter();
  const remove = useMutation(procs.delete.mutationOptions({ onSuccess: () => router.push(`/${kind}`) })) as {
    mutate: (input: Doc) => void;
    error: unknown;
  };
  return (
    <div className="row">
      <ConfirmButton
        label={`Delete ${ONE[kind]}`}
        title={`Delete this ${ONE[kind]}?`}
        description="It is deleted with every version; this cannot be undone."
        confirmLabel="Delete it and every version"
        onConfirm={() => remove.mutate(input)}
        needs="delete"
      />
      <ErrorAlert error={remove.error} />
    </div>
  );
}

function VersionsPanel({
  input,
  procs,
  draft,
  onDone,
  onCompare,
}: {
  input: Doc;
  procs: KindProcedures;
  draft: Doc;
  onDone: () => Promise<void>;
  onCompare?: (compared: ComparedVersion | null) => void;
}) {
  const { versions, deploy } = useVersions(procs, input, onDone);
  const [open, setOpen] = useState<string | null>(null);
  // What an opened version is compared with: the draft, or another version's id.
  const [against, setAgainst] = useState<string>("draft");
  const target = versions.items.find((version) => version.id === against);
  const live = liveVersion(versions.items, draft);
  return (
    <Panel title="Versions" label="Versions">
      {versions.isLoading && <p className="muted">Loading…</p>}
      <ErrorAlert error={versions.error ?? deploy.error} />
      {/* On a phone each version is a card of labelled cells, rather than columns squeezed letter by letter. */}
      {versions.isLoaded && versions.items.length > 1 && (
        <CompareWith
          versions={versions.items}
          value={target ? against : "draft"}
          onChange={(value) => {
            setAgainst(value);
            const opened = versions.items.find((version) => version.id === open);
            onCompare?.(value === "draft" && opened ? compared(opened) : null);
          }}
        />
      )}
      {versions.isLoaded && (
        <DataTable
          label="Versions table"
          cards
          rows={versions.items}
          rowKey={(version) => version.id}
          rowTestId={(version) => `version-${version.number}`}
          initialSort={{ key: "version", direction: "descending" }}
          empty="No versions yet: publish to create version 1."
          detail={(version) =>
            open === version.id ? (
              <VersionChanges
                before={version.document}
                after={target ? target.document : draft}
                label={`Changes from version ${version.number} to ${target ? `version ${target.number}` : "the draft"}`}
                sameText={`${target ? `Version ${target.number}` : "The draft"} is the same as this version.`}
              />
            ) : null
          }
          columns={[
            {
              key: "version",
              header: "Version",
              sortValue: (version) => version.number,
              cell: (version) => (
                <>
                  <strong>{version.name}</strong> <span className="muted">#{version.number}</span>{" "}
                  {version.isProduction && <span className="badge">Live</span>}
                </>
              ),
            },
            {
              key: "published",
              header: "Published",
              cell: (version) => (
                <span className="muted">
                  <When at={version.createdAt} /> by {version.publishedBy} {doorWords(version.source)}
                </span>
              ),
            },
            { key: "notes", header: "Notes", cell: (version) => version.notes },
            {
              key: "actions",
              header: "",
              nowrap: true,
              cell: (version) => (
                <span className="row">
                  <button
                    type="button"
                    onClick={() => {
                      setOpen(open === version.id ? null : version.id);
                      onCompare?.(open === version.id || target ? null : compared(version));
                    }}
                  >
                    {open === version.id
                      ? "Hide changes"
                      : `Compare with ${target ? `version ${target.number}` : "draft"}`}
                  </button>
                  {!version.isProduction && (
                    <MakeLiveButton
                      version={version as { id: string; number: number }}
                      live={live}
                      disabled={deploy.isPending}
                      deploy={(versionId, done) => deploy.mutate({ ...input, versionId }, { onSuccess: done })}
                    />
                  )}
                </span>
              ),
            },
          ]}
        />
      )}
      <LoadMore list={versions} />
    </Panel>
  );
}

/** The versions, newest first a page at a time (the latest come before "Load more"), and making one live. */
function useVersions(procs: KindProcedures, input: Doc, onDone: () => Promise<void>) {
  const versions = useCursorList(
    (cursor) =>
      procs.versions.queryOptions({
        ...input,
        limit: VERSIONS_PAGE,
        order: "newest",
        ...(cursor ? { cursor } : {}),
      }) as {
        queryKey: readonly unknown[];
        queryFn?: () => Promise<{ versions: Doc[]; nextCursor?: string | null }>;
      },
    (page) => page.versions,
  );
  const deploy = useMutation(procs.deploy.mutationOptions({ onSuccess: () => onDone() })) as {
    mutate: (input: Doc, options?: { onSuccess?: () => void }) => void;
    isPending: boolean;
    error: unknown;
  };
  return { versions, deploy };
}

/** The live version; one on a page not loaded yet is known by its id only. */
function liveVersion(loaded: Doc[], draft: Doc): { id: string; number: number | null } | null {
  const loadedLive = loaded.find((version) => version.isProduction);
  return loadedLive
    ? { id: loadedLive.id as string, number: loadedLive.number as number }
    : draft.productionVersionId
      ? { id: draft.productionVersionId as string, number: null }
      : null;
}

/** What an opened version is compared with: the draft, or another version. */
function CompareWith({
  versions,
  value,
  onChange,
}: {
  versions: Doc[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <FormField label="Compare with">
      <Select
        value={value}
        onChange={(event) => onChange(event.target.value)}
        options={[
          { value: "draft", label: "the draft" },
          ...versions.map((version) => ({
            value: version.id,
            label: `version ${version.number}${version.isProduction ? " (live)" : ""}`,
          })),
        ]}
      />
    </FormField>
  );
}
