"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { FileText, Folder } from "lucide-react";
import Link from "next/link";
import { useParams, usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useEffect, useMemo, useRef, useState, type DragEvent, type FormEvent } from "react";
import { TextDiff } from "@/components/text-diff";
import { MarkdownPreview } from "@/components/markdown-preview";
import { PageLinkPicker } from "@/components/page-link-picker";
import { errorMessage, useTRPC } from "@/lib/trpc";
import type { PageIndexEntry } from "@/schemas/knowledgebase";
import "./knowledgebase.css";
import { ConfirmButton, PageHeader, RecentActivity, useMay, useUnsavedChanges } from "@/components/console";
import { KnowledgeSearch } from "@/components/knowledge/knowledge-search";

export default function KnowledgebasePage() {
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <Knowledgebase />
    </Suspense>
  );
}

/** The selected page lives in the URL (?page=…), so reload, back and links to a page work. */
function Knowledgebase() {
  const { knowledgebaseId } = useParams<{ knowledgebaseId: string }>();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const trpc = useTRPC();
  const detail = useQuery(
    trpc.knowledge.get.queryOptions(
      { knowledgebaseId },
      // Live status: poll while a source is still being indexed.
      { refetchInterval: (query) => (query.state.data?.sources.some((s) => s.status === "processing") ? 1500 : false) },
    ),
  );
  const selected = search.get("page");
  const setSelected = (pageId: string | null) => router.push(pageId ? `${pathname}?page=${pageId}` : pathname);

  if (detail.error)
    return (
      <p role="alert" className="error">
        {errorMessage(detail.error)}
      </p>
    );
  if (!detail.data) return <p className="muted">Loading…</p>;
  const kb = detail.data;
  return (
    <>
      <PageHeader title={kb.name} back={{ href: "/knowledge", label: "Knowledge" }} />
      {kb.description && <p className="muted">{kb.description}</p>}
      <p className="muted">
        {kb.counts.sources} source{kb.counts.sources === 1 ? "" : "s"} · {kb.counts.pages} page
        {kb.counts.pages === 1 ? "" : "s"}
      </p>
      <KnowledgeSearch knowledgebaseId={knowledgebaseId} />
      <div className="knowledge-layout">
        <PageTree knowledgebaseId={knowledgebaseId} pages={kb.pages} selected={selected} onSelect={setSelected} />
        {selected ? (
          <PageEditor
            key={selected}
            knowledgebaseId={knowledgebaseId}
            pageId={selected}
            pages={kb.pages}
            onSelect={setSelected}
          />
        ) : (
          <div className="panel muted">Choose a page, or create one.</div>
        )}
      </div>
      <RetrievalTest knowledgebaseId={knowledgebaseId} />
      <Sources knowledgebaseId={knowledgebaseId} sources={kb.sources} />
      <RecentActivity targetId={knowledgebaseId} />
    </>
  );
}

/** Asks a question and shows the passages an agent with this knowledgebase would receive. */
function RetrievalTest({ knowledgebaseId }: { knowledgebaseId: string }) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState("");
  const [question, setQuestion] = useState("");
  const answer = useQuery({
    ...trpc.knowledge.testRetrieval.queryOptions({ knowledgebaseId, question }),
    enabled: question !== "",
  });
  return (
    <div className="panel" aria-label="Retrieval test">
      <h2>What would an agent receive?</h2>
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          setQuestion(draft.trim());
        }}
      >
        <label style={{ flex: 1 }}>
          Question
          <input
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder="e.g. How long do refunds take?"
            style={{ width: "100%" }}
          />
        </label>
        <button type="submit" className="primary" disabled={draft.trim() === ""}>
          Test retrieval
        </button>
      </form>
      {answer.error && (
        <p role="alert" className="error">
          {errorMessage(answer.error)}
        </p>
      )}
      {answer.data && answer.data.passages.length === 0 && (
        <p className="muted">Nothing matches: an agent would receive no passages for this question.</p>
      )}
      {answer.data && answer.data.passages.length > 0 && (
        <ol data-testid="retrieved-passages">
          {answer.data.passages.map((passage, index) => (
            <li key={index}>
              <strong>{passage.title}</strong>
              <p className="muted" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
                {passage.text}
              </p>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function useRefreshKnowledgebase() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
}

function PageTree({
  knowledgebaseId,
  pages,
  selected,
  onSelect,
}: {
  knowledgebaseId: string;
  pages: PageIndexEntry[];
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKnowledgebase();
  const [title, setTitle] = useState("");
  const [isFolder, setIsFolder] = useState(false);
  const [parentPageId, setParentPageId] = useState("");
  const create = useMutation(
    trpc.knowledge.createPage.mutationOptions({
      onSuccess: (result) => {
        setTitle("");
        void refresh();
        onSelect(result.page.id);
      },
    }),
  );
  // Drag a page onto another page (or the top-level zone) to move it there; the server refuses cycles.
  const move = useMutation(trpc.knowledge.movePage.mutationOptions({ onSuccess: () => void refresh() }));
  const [dragging, setDragging] = useState<string | null>(null);
  const dropOn = (parentPageId: string | null) => ({
    onDragOver: (event: DragEvent) => {
      if (dragging && dragging !== parentPageId) event.preventDefault();
    },
    onDrop: (event: DragEvent) => {
      event.preventDefault();
      event.stopPropagation();
      if (dragging && dragging !== parentPageId) move.mutate({ knowledgebaseId, pageId: dragging, parentPageId });
      setDragging(null);
    },
  });
  const children = (parent: string | null) =>
    pages
      .filter((p) => p.parentPageId === parent)
      .sort((a, b) => Number(b.isFolder) - Number(a.isFolder) || a.title.localeCompare(b.title));
  const renderLevel = (parent: string | null) => (
    <ul style={{ listStyle: "none", paddingLeft: parent ? "1rem" : 0, margin: 0 }}>
      {children(parent).map((page) => (
        <li
          key={page.id}
          draggable
          onDragStart={(event) => (event.stopPropagation(), setDragging(page.id))}
          onDragEnd={() => setDragging(null)}
          {...dropOn(page.id)}
        >
          <button
            type="button"
            className={selected === page.id ? "primary" : undefined}
            style={{
              border: 0,
              background: selected === page.id ? undefined : "transparent",
              padding: "0.15rem 0.3rem",
              textAlign: "left",
            }}
            onClick={() => onSelect(page.id)}
            data-testid="page-link"
          >
            {page.isFolder ? (
              <Folder size={16} aria-hidden className="icon" />
            ) : (
              <FileText size={16} aria-hidden className="icon" />
            )}
            {page.title}
          </button>
          {renderLevel(page.id)}
        </li>
      ))}
    </ul>
  );
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ knowledgebaseId, title, isFolder, parentPageId: parentPageId || null });
  }
  return (
    <div className="panel" aria-label="Pages">
      <h2>Pages</h2>
      {pages.length === 0 && <p className="muted">No pages yet.</p>}
      <nav aria-label="Page tree">{renderLevel(null)}</nav>
      {dragging && (
        <div
          className="muted"
          style={{ border: "1px dashed var(--border-strong)", padding: "0.3rem", marginTop: "0.3rem" }}
          {...dropOn(null)}
        >
          Drop here to move to the top level
        </div>
      )}
      {move.error && (
        <p role="alert" className="error">
          {errorMessage(move.error)}
        </p>
      )}
      <form className="form" onSubmit={submit} aria-label="New page" style={{ marginTop: "1rem" }}>
        <label>
          New page title
          <input required maxLength={300} value={title} onChange={(e) => setTitle(e.target.value)} />
        </label>
        <label>
          Inside
          <select value={parentPageId} onChange={(e) => setParentPageId(e.target.value)}>
            <option value="">(top level)</option>
            {pages.map((p) => (
              <option key={p.id} value={p.id}>
                {p.path.join(" / ")}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          <input type="checkbox" checked={isFolder} onChange={(e) => setIsFolder(e.target.checked)} /> Folder
        </label>
        {create.error && (
          <p role="alert" className="error">
            {errorMessage(create.error)}
          </p>
        )}
        <div>
          <button className="primary" type="submit" disabled={create.isPending}>
            Create page
          </button>
        </div>
      </form>
    </div>
  );
}

function PageEditor({
  knowledgebaseId,
  pageId,
  pages,
  onSelect,
}: {
  knowledgebaseId: string;
  pageId: string;
  pages: PageIndexEntry[];
  onSelect: (id: string | null) => void;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKnowledgebase();
  const page = useQuery(trpc.knowledge.getPage.queryOptions({ knowledgebaseId, pageId }));
  const revisions = useQuery(trpc.knowledge.revisions.queryOptions({ knowledgebaseId, pageId }));
  const [title, setTitle] = useState("");
  const [markdown, setMarkdown] = useState("");
  const markdownBox = useRef<HTMLTextAreaElement>(null);
  const [preview, setPreview] = useState(false);
  const [showRevision, setShowRevision] = useState<string | null>(null);
  const [restored, setRestored] = useState(false);
  const keptKey = `atrium.unsaved.page.${pageId}`;
  useEffect(() => {
    if (!page.data) return;
    const kept = readKeptPage(keptKey);
    const fromBrowser = kept && (kept.title !== page.data.title || kept.markdown !== page.data.markdown);
    setTitle(fromBrowser ? kept.title : page.data.title);
    setMarkdown(fromBrowser ? kept.markdown : page.data.markdown);
    setRestored(!!fromBrowser);
  }, [page.data, keptKey]);
  const dirty = !!page.data && (title !== page.data.title || markdown !== page.data.markdown);
  // Text not saved yet stays in this browser (per page) until it is saved or discarded, and
  // leaving the tab asks first: moving to another page and back, or a reload, loses nothing.
  useEffect(() => {
    if (!page.data) return;
    try {
      if (dirty) window.localStorage.setItem(keptKey, JSON.stringify({ title, markdown }));
      else window.localStorage.removeItem(keptKey);
    } catch {
      // Storage full or disabled: the warning before leaving still protects the text.
    }
  }, [dirty, title, markdown, keptKey, page.data]);
  useUnsavedChanges(dirty, { keptInBrowser: true });
  const save = useMutation(trpc.knowledge.savePage.mutationOptions({ onSuccess: () => void refresh() }));
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

  if (page.error)
    return (
      <p role="alert" className="error">
        {errorMessage(page.error)}
      </p>
    );
  if (!page.data) return <p className="muted">Loading…</p>;
  const list = revisions.data?.revisions ?? [];
  return (
    <div className="panel" aria-label="Page editor">
      <div className="row">
        <input
          aria-label="Title"
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          style={{ fontSize: "1.2rem", flex: 1 }}
        />
        <button type="button" onClick={() => setPreview(!preview)}>
          {preview ? "Edit" : "Preview"}
        </button>
        <button
          className="primary"
          type="button"
          disabled={!dirty || save.isPending}
          onClick={() => save.mutate({ knowledgebaseId, pageId, title, markdown })}
        >
          Save
        </button>
      </div>
      <p className="muted" data-testid="page-save-state" aria-live="polite">
        {dirty ? "Not saved yet: kept in this browser until you save" : "Saved"}
      </p>
      {restored && dirty && (
        <div className="notice" role="status" data-testid="restored-page">
          Your unsaved text for this page was brought back from this browser.{" "}
          <button
            type="button"
            onClick={() => {
              setTitle(page.data.title);
              setMarkdown(page.data.markdown);
              setRestored(false);
            }}
          >
            Discard it and show the saved page
          </button>
        </div>
      )}
      {save.error && (
        <p role="alert" className="error">
          {errorMessage(save.error)}
        </p>
      )}
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
        <>
          <PageLinkPicker pages={pages.filter((p) => p.id !== pageId)} textarea={markdownBox} onChange={setMarkdown} />
          <textarea
            ref={markdownBox}
            aria-label="Markdown"
            value={markdown}
            onChange={(e) => setMarkdown(e.target.value)}
            rows={16}
            style={{ width: "100%", fontFamily: "monospace", marginTop: "0.5rem" }}
          />
        </>
      )}
      <div className="row" style={{ marginTop: "0.5rem" }}>
        <label className="inline">
          Move to{" "}
          <select
            aria-label="Move to"
            value={page.data.parentPageId ?? ""}
            onChange={(e) => move.mutate({ knowledgebaseId, pageId, parentPageId: e.target.value || null })}
          >
            <option value="">(top level)</option>
            {pages
              .filter((p) => !descendants.has(p.id))
              .map((p) => (
                <option key={p.id} value={p.id}>
                  {p.path.join(" / ")}
                </option>
              ))}
          </select>
        </label>
        <ConfirmButton
          label="Delete page"
          title={`Delete ${page.data?.title ?? "this page"}?`}
          description="The page is deleted; links to it stop resolving."
          confirmLabel="Delete page"
          disabled={remove.isPending}
          onConfirm={() => remove.mutate({ knowledgebaseId, pageId })}
          needs="delete"
        />
      </div>
      {(move.error ?? remove.error) && (
        <p role="alert" className="error">
          {errorMessage(move.error ?? remove.error)}
        </p>
      )}

      <h3>Backlinks</h3>
      {page.data.referencedBy.length === 0 ? (
        <p className="muted">No page links here.</p>
      ) : (
        <ul>
          {page.data.referencedBy.map((ref) => (
            <li key={ref.id}>
              <button type="button" onClick={() => onSelect(ref.id)}>
                {ref.title}
              </button>
            </li>
          ))}
        </ul>
      )}
      {page.data.relatedPages.length > 0 && (
        <p className="muted">Links to: {page.data.relatedPages.map((p) => p.title).join(", ")}</p>
      )}
      {page.data.attachedFiles.length > 0 && <p className="muted">Sources: {page.data.attachedFiles.join(", ")}</p>}

      <h3>History</h3>
      {list.length === 0 && <p className="muted">No revisions yet.</p>}
      <ol reversed>
        {list.map((revision, i) => (
          <li key={revision.id} data-testid="revision">
            {new Date(revision.createdAt).toLocaleString()} · {revision.authorEmail ?? "organization key"} ·{" "}
            {revision.via}{" "}
            <button type="button" onClick={() => setShowRevision(showRevision === revision.id ? null : revision.id)}>
              {showRevision === revision.id ? "Hide diff" : "Diff"}
            </button>
            {showRevision === revision.id && (
              <TextDiff by="words" before={list[i + 1]?.markdown ?? ""} after={revision.markdown} />
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

function readKeptPage(key: string): { title: string; markdown: string } | null {
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

type SourceRow = {
  id: string;
  name: string;
  type: string;
  status: string;
  errorMessage: string;
  sizeBytes: number;
  createdAt: string;
  url: string;
};

function Sources({ knowledgebaseId, sources }: { knowledgebaseId: string; sources: SourceRow[] }) {
  const trpc = useTRPC();
  const refresh = useRefreshKnowledgebase();
  const [mode, setMode] = useState<"file" | "url" | "text">("file");
  const [url, setUrl] = useState("");
  const [name, setName] = useState("");
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const onSuccess = () => {
    setUrl("");
    setText("");
    setName("");
    setFile(null);
    void refresh();
  };
  const add = useMutation(trpc.knowledge.addSource.mutationOptions({ onSuccess }));
  const uploadFile = useMutation(trpc.knowledge.uploadSource.mutationOptions({ onSuccess }));
  const retry = useMutation(trpc.knowledge.retrySource.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(trpc.knowledge.deleteSource.mutationOptions({ onSuccess: () => void refresh() }));
  // Deleting a source is for admins: members see no Delete.
  const mayDelete = useMay("delete");

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (mode === "url") add.mutate({ knowledgebaseId, url, ...(name ? { name } : {}) });
    else if (mode === "text") add.mutate({ knowledgebaseId, contentMarkdown: text, ...(name ? { name } : {}) });
    else if (file) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      uploadFile.mutate({ knowledgebaseId, fileName: file.name, contentType: file.type, contentBase64: btoa(binary) });
    }
  }
  const failure = add.error ?? uploadFile.error ?? retry.error ?? remove.error;
  return (
    <div className="panel" aria-label="Sources">
      <h2>Sources</h2>
      <form className="form" onSubmit={submit} aria-label="Add a source">
        <div className="row" role="tablist">
          {(["file", "url", "text"] as const).map((value) => (
            <button
              key={value}
              type="button"
              role="tab"
              aria-selected={mode === value}
              className={mode === value ? "primary" : undefined}
              onClick={() => setMode(value)}
            >
              {value === "file" ? "Upload file" : value === "url" ? "From URL" : "Paste text"}
            </button>
          ))}
        </div>
        {mode === "file" && (
          <label>
            File (PDF, CSV, TXT, MD; up to 4.5 MB)
            <input
              type="file"
              accept=".pdf,.csv,.txt,.md,.markdown"
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            />
          </label>
        )}
        {mode === "url" && (
          <label>
            URL
            <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://…" />
          </label>
        )}
        {mode === "text" && (
          <label>
            Markdown
            <textarea required rows={6} value={text} onChange={(e) => setText(e.target.value)} />
          </label>
        )}
        {mode !== "file" && (
          <label>
            Name (optional)
            <input maxLength={300} value={name} onChange={(e) => setName(e.target.value)} />
          </label>
        )}
        <div>
          <button
            className="primary"
            type="submit"
            disabled={add.isPending || uploadFile.isPending || (mode === "file" && !file)}
          >
            Add source
          </button>
        </div>
      </form>
      {failure && (
        <p role="alert" className="error">
          {errorMessage(failure)}
        </p>
      )}
      {sources.length === 0 ? (
        <p className="muted">No sources yet.</p>
      ) : (
        // On a phone each source is a card (console.css, .table-cards), each cell under its column's name.
        <div className="table-scroll table-cards" role="region" aria-label="Sources table" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Type</th>
                <th>Status</th>
                <th>Size</th>
                <th>Added</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {sources.map((source) => (
                <tr key={source.id} data-testid="source-row">
                  <td style={{ minWidth: "9rem" }} data-label="Name">
                    <Link href={`/knowledge/${knowledgebaseId}/sources/${source.id}`}>{source.name}</Link>
                    {source.url && <div className="muted">{source.url}</div>}
                  </td>
                  <td className="nowrap" data-label="Type">
                    {source.type}
                  </td>
                  <td data-label="Status">
                    <span className={`badge${source.status === "failed" ? " revoked" : ""}`}>{source.status}</span>
                    {source.errorMessage && <div className="error">{source.errorMessage}</div>}
                  </td>
                  <td className="muted nowrap" data-label="Size">
                    {source.sizeBytes ? `${Math.ceil(source.sizeBytes / 1024)} KB` : ""}
                  </td>
                  <td className="muted nowrap" data-label="Added">
                    {new Date(source.createdAt).toLocaleString()}
                  </td>
                  <td className="nowrap">
                    {source.status === "failed" && (
                      <button type="button" onClick={() => retry.mutate({ knowledgebaseId, sourceId: source.id })}>
                        Retry
                      </button>
                    )}
                    {mayDelete && (
                      <ConfirmButton
                        label="Delete"
                        title={`Delete ${source.name}?`}
                        description="The source, its extracted text and its chunks are deleted; agents no longer find its passages."
                        confirmLabel="Delete source"
                        onConfirm={() => remove.mutate({ knowledgebaseId, sourceId: source.id })}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
