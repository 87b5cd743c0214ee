"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import {
  Button,
  ConfirmButton,
  DataTable,
  type Column,
  ErrorAlert,
  FormActions,
  FormField,
  Panel,
  Select,
  useMay,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MAX_PAGE_MARKDOWN_CHARS, MAX_TITLE_CHARS } from "@/schemas/limits";
import { CRAWL_BOUNDS } from "@/schemas/knowledge/source";
import { formatFileSize } from "@/lib/file-size";
import { useRefreshKnowledgebase } from "./use-refresh-knowledgebase";

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
  const started = new Date(crawl.startedAt).toLocaleString();
  const run =
    crawl.status === "running" || !crawl.finishedAt
      ? `running since ${started}`
      : `last run ${started}, finished ${new Date(crawl.finishedAt).toLocaleString()}`;
  return [
    `up to ${crawl.maxPages} pages, ${crawl.maxDepth} links deep, same host, robots.txt honoured`,
    crawl.refresh && `refreshed ${crawl.refresh}`,
    `${crawl.pages} found`,
    run,
  ]
    .filter(Boolean)
    .join(" · ");
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
  const [mode, setMode] = useState<"file" | "url" | "text">("file");
  const [url, setUrl] = useState("");
  const [name, setName] = useState("");
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [keepFresh, setKeepFresh] = useState<"" | "daily" | "weekly">("");
  const [crawl, setCrawl] = useState(false);
  const [maxPages, setMaxPages] = useState(50);
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
    if (mode === "url")
      add.mutate({
        knowledgebaseId,
        url,
        ...(name ? { name } : {}),
        ...(keepFresh ? { refresh: keepFresh } : {}),
        ...(crawl ? { crawl: { maxPages, sameHost: true as const } } : {}),
      });
    else if (mode === "text") add.mutate({ knowledgebaseId, contentMarkdown: text, ...(name ? { name } : {}) });
    else if (file) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      uploadFile.mutate({ knowledgebaseId, fileName: file.name, contentType: file.type, contentBase64: btoa(binary) });
    }
  }
  const crawlIds = new Set(crawls.map((crawl) => crawl.id));
  const columns: Column<SourceRow>[] = [
    {
      key: "name",
      header: "Name",
      sortValue: (source) => source.name,
      cell: (source) => (
        <>
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
        </>
      ),
    },
    {
      key: "type",
      header: "Type",
      nowrap: true,
      sortValue: (source) => source.type,
      cell: (source) => source.type,
    },
    {
      key: "status",
      header: "Status",
      sortValue: (source) => source.status,
      cell: (source) => (
        <>
          <span className={`badge${source.status === "failed" ? " revoked" : ""}`}>{source.status}</span>
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
      cell: (source) => <span className="muted">{new Date(source.createdAt).toLocaleString()}</span>,
    },
    {
      key: "actions",
      header: "",
      nowrap: true,
      cell: (source) => (
        <>
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
        </>
      ),
    },
  ];
  return (
    <Panel title="Sources" label="Sources">
      <form className="form" onSubmit={submit} aria-label="Add a source">
        <div className="row" role="tablist">
          {(["file", "url", "text"] as const).map((value) => (
            <Button
              key={value}
              role="tab"
              aria-selected={mode === value}
              variant={mode === value ? "primary" : "secondary"}
              onClick={() => setMode(value)}
            >
              {value === "file" ? "Upload file" : value === "url" ? "From URL" : "Paste text"}
            </Button>
          ))}
        </div>
        {mode === "file" && (
          <FormField label="File (PDF, DOCX, PPTX, XLSX, HTML, CSV, TXT, MD; up to 4.5 MB)">
            <input
              type="file"
              accept=".pdf,.docx,.pptx,.xlsx,.html,.htm,.csv,.txt,.md,.markdown"
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            />
          </FormField>
        )}
        {mode === "url" && (
          <>
            <FormField label="URL (a page, or a sitemap to crawl)">
              <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://…" />
            </FormField>
            <FormField label="Keep fresh">
              <Select
                value={keepFresh}
                onChange={(e) => setKeepFresh(e.target.value as "" | "daily" | "weekly")}
                options={[
                  { value: "daily", label: "Fetch again daily" },
                  { value: "weekly", label: "Fetch again weekly" },
                ]}
                placeholder="No: fetch once"
              />
            </FormField>
            <label className="row">
              <input type="checkbox" checked={crawl} onChange={(e) => setCrawl(e.target.checked)} />
              Crawl the pages it links to on the same host (robots.txt honoured), each a source of its own
            </label>
            {crawl && (
              <FormField label={`Pages at most (1–${CRAWL_BOUNDS.maxPages})`}>
                <input
                  type="number"
                  min={1}
                  max={CRAWL_BOUNDS.maxPages}
                  value={maxPages}
                  onChange={(e) => setMaxPages(Number(e.target.value))}
                />
              </FormField>
            )}
          </>
        )}
        {mode === "text" && (
          <FormField label="Markdown">
            <textarea
              required
              rows={6}
              maxLength={MAX_PAGE_MARKDOWN_CHARS}
              value={text}
              onChange={(e) => setText(e.target.value)}
            />
          </FormField>
        )}
        {mode !== "file" && (
          <FormField label="Name (optional)">
            <input maxLength={MAX_TITLE_CHARS} value={name} onChange={(e) => setName(e.target.value)} />
          </FormField>
        )}
        <FormActions
          error={add.error ?? uploadFile.error}
          submitLabel="Add source"
          pending={add.isPending || uploadFile.isPending}
          disabled={mode === "file" && !file}
        />
      </form>
      <ErrorAlert error={retry.error ?? remove.error} />
      <DataTable
        label="Sources table"
        cards
        rows={sources.filter((source) => !source.crawlId || !crawlIds.has(source.crawlId))}
        rowKey={(source) => source.id}
        rowTestId="source-row"
        empty={crawls.length ? "No sources apart from the crawls below." : "No sources yet."}
        columns={columns}
      />
      {crawls.map((crawl) => (
        <section key={crawl.id} aria-label={`Crawl of ${crawl.startUrl}`}>
          <h3>Crawl of {crawl.startUrl}</h3>
          <p className="muted">{crawlLine(crawl)}</p>
          <DataTable
            label={`Pages of the crawl of ${crawl.startUrl}`}
            cards
            rows={sources.filter((source) => source.crawlId === crawl.id)}
            rowKey={(source) => source.id}
            rowTestId="source-row"
            empty="No pages yet."
            columns={columns}
          />
        </section>
      ))}
    </Panel>
  );
}
