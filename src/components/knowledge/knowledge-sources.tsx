"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import { useWatch } from "react-hook-form";
import {
  Button,
  ConfirmButton,
  DataTable,
  ErrorAlert,
  fieldProblem,
  FormActions,
  FormField,
  NAME_COLUMN,
  Panel,
  Select,
  type Column,
  useMay,
  useZodForm,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { sourceStatusWords, sourceTypeWords } from "@/lib/source-words";
import { MAX_PAGE_MARKDOWN_CHARS, MAX_TITLE_CHARS } from "@/schemas/limits";
import { CRAWL_BOUNDS, CreateSourceInput, UploadSourceInput } from "@/schemas/knowledge/source";
import { formatFileSize } from "@/lib/file-size";
import { useRefreshKnowledgebase } from "./use-refresh-knowledgebase";
import { whenWords } from "@/lib/when";

export type SourceRow = {
  id: string;
  name: string;
  type: string;
  status: string;
  errorMessage: string;
  sizeBytes: number;
  createdAt: string;
  url: string;
  refresh?: string | null;
  crawlId?: string | null;
};

export type CrawlRow = {
  id: string;
  startUrl: string;
  maxPages: number;
  maxDepth: number;
  refresh: string | null;
  status: string;
  pages: number;
  startedAt: string;
  finishedAt: string | null;
};

/** A crawl's bounds and its run, in a line. */
function crawlLine(crawl: CrawlRow): string {
  const started = whenWords(crawl.startedAt);
  const run =
    crawl.status === "running" || !crawl.finishedAt
      ? `running since ${started}`
      : `last run ${started}, finished ${whenWords(crawl.finishedAt)}`;
  return [
    `up to ${crawl.maxPages} pages, ${crawl.maxDepth} ${crawl.maxDepth === 1 ? "link" : "links"} deep, same host, robots.txt honoured`,
    crawl.refresh && `refreshed ${crawl.refresh}`,
    `${crawl.pages} ${crawl.pages === 1 ? "page" : "pages"} found`,
    run,
  ]
    .filter(Boolean)
    .join(" · ");
}

type SourceMode = "file" | "url" | "text";

/** The add form's tabs: what the new source is made from. */
function SourceTabs({ mode, onMode }: { mode: SourceMode; onMode: (mode: SourceMode) => void }) {
  return (
    <div className="row" role="tablist">
      {(["file", "url", "text"] as const).map((value) => (
        <Button
          key={value}
          role="tab"
          aria-selected={mode === value}
          variant={mode === value ? "primary" : "secondary"}
          onClick={() => onMode(value)}
        >
          {value === "file" ? "Upload file" : value === "url" ? "From URL" : "Paste text"}
        </Button>
      ))}
    </div>
  );
}

/** A file read as base64, as the console's upload sends it. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A file to upload, checked with the upload's schema (its bytes are read when it is sent). */
function UploadSourceForm({
  knowledgebaseId,
  onAdded,
  children,
}: {
  knowledgebaseId: string;
  onAdded: () => void;
  /** The tabs, first in the form. */
  children: ReactNode;
}) {
  const trpc = useTRPC();
  const form = useZodForm(UploadSourceInput.omit({ contentBase64: true }), {
    defaultValues: { file: null },
    asInput: ({ file }: { file: File | null }) => ({
      knowledgebaseId,
      fileName: file?.name ?? "",
      contentType: file?.type ?? "",
    }),
    fieldOf: () => "file" as const,
  });
  const file = useWatch({ control: form.control, name: "file" });
  const upload = useMutation(
    trpc.knowledge.uploadSource.mutationOptions({ onSuccess: () => (form.reset(), onAdded()) }),
  );
  const submit = form.handleSubmit(async (input) => {
    const chosen = form.getValues("file");
    if (chosen) upload.mutate({ ...input, contentBase64: await base64Of(chosen) });
  });
  return (
    <form className="form" onSubmit={(event) => void submit(event)} aria-label="Add a source">
      {children}
      <FormField
        label="File (PDF, DOCX, PPTX, XLSX, HTML, CSV, TXT, MD; up to 4.5 MB)"
        error={fieldProblem(form, "file")}
      >
        <input
          type="file"
          accept=".pdf,.docx,.pptx,.xlsx,.html,.htm,.csv,.txt,.md,.markdown"
          onChange={(e) => form.setValue("file", e.target.files?.[0] ?? null)}
        />
      </FormField>
      <FormActions error={upload.error} submitLabel="Add source" pending={upload.isPending} disabled={!file} />
    </form>
  );
}

/** The form as typed for a URL or pasted text. */
interface SourceFields {
  url: string;
  name: string;
  text: string;
  keepFresh: "" | "daily" | "weekly";
  crawl: boolean;
  maxPages: number;
}

/** Where a problem of the input shows. */
function sourceField(path: readonly PropertyKey[]): keyof SourceFields | null {
  const [field] = path;
  if (field === "contentMarkdown") return "text";
  if (field === "refresh") return "keepFresh";
  if (field === "crawl") return "maxPages";
  return field === "url" || field === "name" ? field : null;
}

/** A URL (fetched again if asked, or crawled) or pasted markdown, checked with the API's create schema. */
function AddSourceForm({
  knowledgebaseId,
  mode,
  onAdded,
  children,
}: {
  knowledgebaseId: string;
  mode: "url" | "text";
  onAdded: () => void;
  /** The tabs, first in the form. */
  children: ReactNode;
}) {
  const trpc = useTRPC();
  const form = useZodForm(CreateSourceInput, {
    defaultValues: { url: "", name: "", text: "", keepFresh: "", crawl: false, maxPages: 50 },
    asInput: (fields: SourceFields) => ({
      knowledgebaseId,
      ...(fields.name ? { name: fields.name } : {}),
      ...(mode === "text"
        ? { contentMarkdown: fields.text }
        : {
            url: fields.url,
            ...(fields.keepFresh ? { refresh: fields.keepFresh } : {}),
            ...(fields.crawl ? { crawl: { maxPages: fields.maxPages, sameHost: true as const } } : {}),
          }),
    }),
    fieldOf: sourceField,
  });
  const crawl = useWatch({ control: form.control, name: "crawl" });
  const add = useMutation(trpc.knowledge.addSource.mutationOptions({ onSuccess: () => (form.reset(), onAdded()) }));
  const submit = form.handleSubmit((input) => add.mutate(input));
  return (
    <form className="form" onSubmit={(event) => void submit(event)} aria-label="Add a source">
      {children}
      {mode === "url" && (
        <>
          <FormField label="URL (a page, or a sitemap to crawl)" error={fieldProblem(form, "url")}>
            <input type="url" required placeholder="https://…" {...form.register("url")} />
          </FormField>
          <FormField label="Keep fresh" error={fieldProblem(form, "keepFresh")}>
            <Select
              {...form.register("keepFresh")}
              options={[
                { value: "daily", label: "Fetch again daily" },
                { value: "weekly", label: "Fetch again weekly" },
              ]}
              placeholder="No: fetch once"
            />
          </FormField>
          <label className="row">
            <input type="checkbox" {...form.register("crawl")} />
            Crawl the pages it links to on the same host (robots.txt honoured), each a source of its own
          </label>
          {crawl && (
            <FormField label={`Pages at most (1–${CRAWL_BOUNDS.maxPages})`} error={fieldProblem(form, "maxPages")}>
              <input
                type="number"
                min={1}
                max={CRAWL_BOUNDS.maxPages}
                {...form.register("maxPages", { valueAsNumber: true })}
              />
            </FormField>
          )}
        </>
      )}
      {mode === "text" && (
        <FormField label="Markdown" error={fieldProblem(form, "text")}>
          <textarea required rows={6} maxLength={MAX_PAGE_MARKDOWN_CHARS} {...form.register("text")} />
        </FormField>
      )}
      <FormField label="Name (optional)" error={fieldProblem(form, "name")}>
        <input maxLength={MAX_TITLE_CHARS} {...form.register("name")} />
      </FormField>
      <FormActions error={fieldProblem(form, "root") ?? add.error} submitLabel="Add source" pending={add.isPending} />
    </form>
  );
}

/**
 * A knowledgebase's sources: add one (a file, a URL, pasted text), see each one's status, retry or
 * delete it. A crawl's pages are listed under their crawl, with its bounds and its run.
 */
export function KnowledgeSources({
  knowledgebaseId,
  sources,
  crawls = [],
}: {
  knowledgebaseId: string;
  sources: SourceRow[];
  crawls?: CrawlRow[];
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKnowledgebase();
  const [mode, setMode] = useState<SourceMode>("file");
  const retry = useMutation(trpc.knowledge.retrySource.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(trpc.knowledge.deleteSource.mutationOptions({ onSuccess: () => void refresh() }));
  // Deleting a source is for admins: members see no Delete.
  const mayDelete = useMay("delete");

  const crawlIds = new Set(crawls.map((crawl) => crawl.id));
  const columns = sourceColumns({
    knowledgebaseId,
    crawlIds,
    mayDelete,
    onRetry: (sourceId) => retry.mutate({ knowledgebaseId, sourceId }),
    onDelete: (sourceId) => remove.mutate({ knowledgebaseId, sourceId }),
  });
  return (
    <Panel title="Sources" label="Sources">
      {mode === "file" ? (
        <UploadSourceForm knowledgebaseId={knowledgebaseId} onAdded={() => void refresh()}>
          <SourceTabs mode={mode} onMode={setMode} />
        </UploadSourceForm>
      ) : (
        <AddSourceForm key={mode} knowledgebaseId={knowledgebaseId} mode={mode} onAdded={() => void refresh()}>
          <SourceTabs mode={mode} onMode={setMode} />
        </AddSourceForm>
      )}
      <ErrorAlert error={retry.error ?? remove.error} />
      <DataTable
        label="Sources table"
        cards
        rows={sources.filter((source) => !source.crawlId || !crawlIds.has(source.crawlId))}
        rowTestId="source-row"
        empty={
          crawls.length
            ? "No sources apart from the crawls below."
            : "No sources yet: upload a file, add a URL or paste text above."
        }
        columns={columns}
      />
      {crawls.map((crawl) => (
        <CrawlGroup
          key={crawl.id}
          crawl={crawl}
          pages={sources.filter((source) => source.crawlId === crawl.id)}
          columns={columns}
        />
      ))}
    </Panel>
  );
}

/** The sources table's columns: the source (linked), its type, status, size and age, and its actions. */
function sourceColumns({
  knowledgebaseId,
  crawlIds,
  mayDelete,
  onRetry,
  onDelete,
}: {
  knowledgebaseId: string;
  /** The crawls listed on the page: their pages are under them, not marked. */
  crawlIds: Set<string>;
  mayDelete: boolean;
  onRetry: (sourceId: string) => void;
  onDelete: (sourceId: string) => void;
}): Column<SourceRow>[] {
  return [
    {
      ...NAME_COLUMN,
      cell: (source) => (
        // Wide enough that a long reason beside it does not squeeze a URL to a letter a line.
        <div className="cell-min-11 wrap-anywhere">
          <Link href={`/knowledge/${knowledgebaseId}/sources/${source.id}`}>{source.name}</Link>
          {source.url && <div className="muted">{source.url}</div>}
          {(source.refresh || source.crawlId) && (
            <div className="muted">
              {[
                source.crawlId && !crawlIds.has(source.crawlId) && "found by a crawl",
                source.refresh && `refreshed ${source.refresh}`,
              ]
                .filter(Boolean)
                .join(" · ")}
            </div>
          )}
        </div>
      ),
    },
    {
      key: "type",
      header: "Type",
      nowrap: true,
      sortValue: (source) => source.type,
      cell: (source) => sourceTypeWords(source.type),
    },
    {
      key: "status",
      header: "Status",
      sortValue: (source) => source.status,
      cell: (source) => (
        <>
          <span className={`badge${source.status === "failed" ? " revoked" : ""}`}>
            {sourceStatusWords(source.status)}
          </span>
          {source.errorMessage && <div className="failure-reason">{source.errorMessage}</div>}
        </>
      ),
    },
    {
      key: "size",
      header: "Size",
      nowrap: true,
      sortValue: (source) => source.sizeBytes,
      cell: (source) => <span className="muted">{source.sizeBytes ? formatFileSize(source.sizeBytes) : ""}</span>,
    },
    {
      key: "added",
      header: "Added",
      nowrap: true,
      sortValue: (source) => source.createdAt,
      cell: (source) => (
        <span className="muted">
          <When at={source.createdAt} />
        </span>
      ),
    },
    {
      key: "actions",
      header: "",
      nowrap: true,
      cell: (source) => (
        <>
          {source.status === "failed" && (
            <button type="button" onClick={() => onRetry(source.id)}>
              Retry
            </button>
          )}
          {mayDelete && (
            <ConfirmButton
              label="Delete"
              title={`Delete ${source.name}?`}
              description="The source, its extracted text and its chunks are deleted; agents no longer find its passages."
              confirmLabel="Delete source"
              onConfirm={() => onDelete(source.id)}
            />
          )}
        </>
      ),
    },
  ];
}

/** A crawl's pages under its start URL, with its bounds and its run in a line. */
function CrawlGroup({ crawl, pages, columns }: { crawl: CrawlRow; pages: SourceRow[]; columns: Column<SourceRow>[] }) {
  return (
    <section aria-label={`Crawl of ${crawl.startUrl}`}>
      <h3>Crawl of {crawl.startUrl}</h3>
      <p className="muted">{crawlLine(crawl)}</p>
      <DataTable
        label={`Pages of the crawl of ${crawl.startUrl}`}
        cards
        rows={pages}
        rowTestId="source-row"
        empty="No pages yet."
        columns={columns}
      />
    </section>
  );
}
