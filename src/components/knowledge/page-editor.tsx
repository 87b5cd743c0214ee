"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import {
  Button,
  ConfirmButton,
  ErrorAlert,
  fieldProblem,
  Panel,
  Select,
  useFieldValue,
  useUnsavedChanges,
  useZodForm,
  When,
} from "@/components/console";
import { MarkdownPreview } from "@/components/markdown-preview";
import { PageLinkPicker } from "@/components/page-link-picker";
import { TextDiff } from "@/components/text-diff";
import { useTRPC } from "@/lib/trpc";
import type { PageIndexEntry } from "@/schemas/knowledge/knowledgebase";
import { SavePageInput } from "@/schemas/knowledge/page";
import { MAX_PAGE_MARKDOWN_CHARS, MAX_TITLE_CHARS } from "@/schemas/limits";
import { useRefreshKnowledgebase } from "./use-refresh-knowledgebase";

type Page = { title: string; markdown: string };

/** Text typed but not saved, kept in this browser per page (see PageForm). */
function readKeptPage(key: string): Page | null {
  try {
    const raw = window.localStorage.getItem(key);
    const kept = raw ? (JSON.parse(raw) as { title?: unknown; markdown?: unknown }) : null;
    return kept && typeof kept.title === "string" && typeof kept.markdown === "string"
      ? { title: kept.title, markdown: kept.markdown }
      : null;
  } catch {
    return null;
  }
}

/** One page: its title and markdown to edit, where it sits, its backlinks and its history. */
export function PageEditor(props: {
  knowledgebaseId: string;
  pageId: string;
  pages: PageIndexEntry[];
  onSelect: (id: string | null) => void;
}) {
  const trpc = useTRPC();
  const page = useQuery(
    trpc.knowledge.getPage.queryOptions({ knowledgebaseId: props.knowledgebaseId, pageId: props.pageId }),
  );
  if (page.error) return <ErrorAlert error={page.error} />;
  if (!page.data) return <p className="muted">Loading…</p>;
  // The form starts from the page as first loaded (or the text kept in this browser) and is
  // compared with the latest saved page to know whether it is dirty.
  return <PageForm {...props} page={page.data} />;
}

function PageForm({
  knowledgebaseId,
  pageId,
  pages,
  onSelect,
  page,
}: {
  knowledgebaseId: string;
  pageId: string;
  pages: PageIndexEntry[];
  onSelect: (id: string | null) => void;
  page: Page & {
    parentPageId: string | null;
    referencedBy: { id: string; title: string }[];
    relatedPages: { title: string }[];
    attachedFiles: string[];
  };
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKnowledgebase();
  const { form, title, setTitle, markdown, setMarkdown, restored, setRestored, dirty } = usePageDraft(
    knowledgebaseId,
    pageId,
    page,
  );
  const [preview, setPreview] = useState(false);
  const save = useMutation(trpc.knowledge.savePage.mutationOptions({ onSuccess: () => void refresh() }));

  return (
    <Panel label="Page editor">
      <form onSubmit={form.handleSubmit((input) => save.mutate(input))}>
        <div className="row">
          <input
            aria-label="Title"
            className="page-title-input"
            maxLength={MAX_TITLE_CHARS}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
          />
          <button type="button" onClick={() => setPreview(!preview)}>
            {preview ? "Edit" : "Preview"}
          </button>
          <Button variant="primary" type="submit" disabled={!dirty || save.isPending}>
            Save
          </Button>
        </div>
        <p className="muted" data-testid="page-save-state" aria-live="polite">
          {dirty ? "Not saved yet: kept in this browser until you save" : "Saved"}
        </p>
        {restored && dirty && (
          <RestoredNotice
            onDiscard={() => {
              setTitle(page.title);
              setMarkdown(page.markdown);
              setRestored(false);
            }}
          />
        )}
        <ErrorAlert error={fieldProblem(form, "title") ?? fieldProblem(form, "markdown") ?? save.error} />
        {save.data && !dirty && save.data.links.unresolved.length > 0 && (
          <p className="muted">
            Unresolved links: {save.data.links.unresolved.map((l) => `${l.kind}:${l.id}`).join(", ")}
          </p>
        )}
        {preview ? (
          <div className="markdown" data-testid="preview">
            <MarkdownPreview markdown={markdown} />
          </div>
        ) : (
          <MarkdownBox pages={pages.filter((p) => p.id !== pageId)} markdown={markdown} onChange={setMarkdown} />
        )}
      </form>
      <PageActions knowledgebaseId={knowledgebaseId} pageId={pageId} pages={pages} page={page} onSelect={onSelect} />
      <Backlinks page={page} onSelect={onSelect} />
      <PageHistory knowledgebaseId={knowledgebaseId} pageId={pageId} />
    </Panel>
  );
}

/**
 * The title and text being edited: from the page as first loaded, or the unsaved text kept in
 * this browser, which stays there (per page) until it is saved or discarded.
 */
function usePageDraft(knowledgebaseId: string, pageId: string, page: { title: string; markdown: string }) {
  const keptKey = `atrium.unsaved.page.${pageId}`;
  const [start] = useState(() => {
    const kept = readKeptPage(keptKey);
    const fromBrowser = !!kept && (kept.title !== page.title || kept.markdown !== page.markdown);
    return { ...(fromBrowser ? kept : page), restored: fromBrowser };
  });
  // Checked with the API's own input before it is sent (an empty title is refused beside it).
  const form = useZodForm(SavePageInput, {
    defaultValues: { knowledgebaseId, pageId, title: start.title, markdown: start.markdown },
  });
  const [title = "", setTitle] = useFieldValue(form, "title");
  const [markdown, setMarkdown] = useFieldValue(form, "markdown");
  const [restored, setRestored] = useState(start.restored);
  const dirty = title !== page.title || markdown !== page.markdown;
  // Text not saved yet stays in this browser (per page) until it is saved or discarded, and
  // leaving the tab asks first: moving to another page and back, or a reload, loses nothing.
  useEffect(() => {
    try {
      if (dirty) window.localStorage.setItem(keptKey, JSON.stringify({ title, markdown }));
      else window.localStorage.removeItem(keptKey);
    } catch {
      // Storage full or disabled: the warning before leaving still protects the text.
    }
  }, [dirty, title, markdown, keptKey]);
  useUnsavedChanges(dirty, { keptInBrowser: true });
  return { form, title, setTitle, markdown, setMarkdown, restored, setRestored, dirty };
}

/** Unsaved text came back from this browser: say so, and offer the saved page instead. */
function RestoredNotice({ onDiscard }: { onDiscard: () => void }) {
  return (
    <div className="notice" role="status" data-testid="restored-page">
      Your unsaved text for this page was brought back from this browser.{" "}
      <button type="button" onClick={onDiscard}>
        Discard it and show the saved page
      </button>
    </div>
  );
}

/** The Markdown being written, with the picker that inserts a link to another page. */
function MarkdownBox({
  pages,
  markdown,
  onChange,
}: {
  pages: PageIndexEntry[];
  markdown: string;
  onChange: (markdown: string) => void;
}) {
  const markdownBox = useRef<HTMLTextAreaElement>(null);
  return (
    <>
      <PageLinkPicker pages={pages} textarea={markdownBox} onChange={onChange} />
      <textarea
        ref={markdownBox}
        aria-label="Markdown"
        className="markdown-input"
        maxLength={MAX_PAGE_MARKDOWN_CHARS}
        value={markdown}
        onChange={(e) => onChange(e.target.value)}
        rows={16}
      />
    </>
  );
}

/** Move the page under another (never under itself or its own sub-pages), or delete it. */
function PageActions({
  knowledgebaseId,
  pageId,
  pages,
  page,
  onSelect,
}: {
  knowledgebaseId: string;
  pageId: string;
  pages: PageIndexEntry[];
  page: { title: string; parentPageId: string | null };
  onSelect: (id: string | null) => void;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKnowledgebase();
  const move = useMutation(trpc.knowledge.movePage.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(
    trpc.knowledge.deletePage.mutationOptions({
      onSuccess: () => {
        onSelect(null);
        void refresh();
      },
    }),
  );
  // A page cannot move under itself or its own sub-pages.
  const descendants = useMemo(() => {
    const out = new Set([pageId]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const p of pages) {
        if (p.parentPageId && out.has(p.parentPageId) && !out.has(p.id)) {
          out.add(p.id);
          grew = true;
        }
      }
    }
    return out;
  }, [pages, pageId]);
  return (
    <>
      <div className="row page-editor-actions">
        <label className="inline">
          Move to{" "}
          <Select
            aria-label="Move to"
            value={page.parentPageId ?? ""}
            onChange={(e) => move.mutate({ knowledgebaseId, pageId, parentPageId: e.target.value || null })}
            options={pages
              .filter((p) => !descendants.has(p.id))
              .map((p) => ({ value: p.id, label: p.path.join(" / ") }))}
            placeholder="(top level)"
          />
        </label>
        <ConfirmButton
          label="Delete page"
          title={`Delete ${page.title}?`}
          description="The page is deleted; links to it stop resolving."
          confirmLabel="Delete page"
          disabled={remove.isPending}
          onConfirm={() => remove.mutate({ knowledgebaseId, pageId })}
          needs="delete"
        />
      </div>
      <ErrorAlert error={move.error ?? remove.error} />
    </>
  );
}

/** The pages that link here (each opens it), what this page links to, and the sources attached to it. */
function Backlinks({
  page,
  onSelect,
}: {
  page: { referencedBy: { id: string; title: string }[]; relatedPages: { title: string }[]; attachedFiles: string[] };
  onSelect: (id: string) => void;
}) {
  return (
    <>
      <h3>Backlinks</h3>
      {page.referencedBy.length === 0 ? (
        <p className="muted">No page links here.</p>
      ) : (
        <ul>
          {page.referencedBy.map((ref) => (
            <li key={ref.id}>
              <button type="button" onClick={() => onSelect(ref.id)}>
                {ref.title}
              </button>
            </li>
          ))}
        </ul>
      )}
      {page.relatedPages.length > 0 && (
        <p className="muted">Links to: {page.relatedPages.map((p) => p.title).join(", ")}</p>
      )}
      {page.attachedFiles.length > 0 && <p className="muted">Sources: {page.attachedFiles.join(", ")}</p>}
    </>
  );
}

/** The page's revisions, newest first, each with its diff from the one before on demand. */
function PageHistory({ knowledgebaseId, pageId }: { knowledgebaseId: string; pageId: string }) {
  const trpc = useTRPC();
  const revisions = useQuery(trpc.knowledge.revisions.queryOptions({ knowledgebaseId, pageId }));
  const [showRevision, setShowRevision] = useState<string | null>(null);
  const list = revisions.data?.revisions ?? [];
  return (
    <>
      <h3>History</h3>
      {list.length === 0 && <p className="muted">No revisions yet.</p>}
      <ol reversed>
        {list.map((revision, i) => (
          <li key={revision.id} data-testid="revision">
            <When at={revision.createdAt} /> · {revision.authorEmail ?? "organization key"} · {revision.via}{" "}
            <button type="button" onClick={() => setShowRevision(showRevision === revision.id ? null : revision.id)}>
              {showRevision === revision.id ? "Hide diff" : "Diff"}
            </button>
            {showRevision === revision.id && (
              <TextDiff by="words" before={list[i + 1]?.markdown ?? ""} after={revision.markdown} />
            )}
          </li>
        ))}
      </ol>
    </>
  );
}
