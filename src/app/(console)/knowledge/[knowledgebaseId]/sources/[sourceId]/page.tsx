"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import {
  CopyButton,
  DataTable,
  ErrorAlert,
  notifyDone,
  PageFailed,
  PageHeader,
  PageLoading,
  Panel,
  Select,
  useMay,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { formatFileSize } from "@/lib/file-size";
import {
  indexingWords,
  refreshOutcomeWords,
  sourceAddedWords,
  sourceStatusWords,
  sourceTypeWords,
} from "@/lib/source-words";
import type { CrawlSummary } from "@/schemas/knowledge/knowledgebase";
import type { SourceDetail } from "@/schemas/knowledge/source";
import "@/components/knowledge/knowledge.css";
import { whenWords } from "@/lib/when";

/** One source: its status and indexing, the text extracted from it, and the chunks agents search. */
export default function SourcePage() {
  const { knowledgebaseId, sourceId } = useParams<{ knowledgebaseId: string; sourceId: string }>();
  const trpc = useTRPC();
  const kb = useQuery(trpc.knowledge.get.queryOptions({ knowledgebaseId }));
  const detail = useQuery(
    trpc.knowledge.sourceDetail.queryOptions(
      { knowledgebaseId, sourceId },
      // Live status: poll while the source is being indexed.
      { refetchInterval: (query) => (query.state.data?.source.status === "processing" ? 1500 : false) },
    ),
  );
  const back = { href: `/knowledge/${knowledgebaseId}`, label: kb.data?.name ?? "Knowledgebase" };

  if (detail.error) return <PageFailed title="Source" back={back} error={detail.error} />;
  const data = detail.data;
  if (!data) return <PageLoading title="Source" />;
  const { source } = data;
  const crawl = kb.data?.crawls.find((candidate) => candidate.id === source.crawlId);
  return (
    <>
      <PageHeader title={source.name} back={back}>
        <span className={`badge${source.status === "failed" ? " revoked" : ""}`} data-testid="source-status">
          {sourceStatusWords(source.status)}
        </span>
      </PageHeader>
      <StatusPanel knowledgebaseId={knowledgebaseId} detail={data} crawl={crawl} />

      {source.refresh && (
        <Panel title="Refreshes">
          <DataTable
            label="Refreshes table"
            rows={data.refreshes}
            rowKey={(check) => check.at}
            rowTestId="source-refresh-check"
            empty="Not fetched again yet."
            columns={[
              { key: "at", header: "When", nowrap: true, cell: (check) => <When at={check.at} /> },
              { key: "outcome", header: "Outcome", nowrap: true, cell: (check) => refreshOutcomeWords(check.outcome) },
              {
                key: "summary",
                header: "What changed",
                cell: (check) => <span className="chunk-text">{check.summary}</span>,
              },
            ]}
          />
        </Panel>
      )}

      <ExtractedTextPanel detail={data} />
      <ChunksPanel detail={data} />
    </>
  );
}

/** The source's facts: type, size, when, its URL and how often it is fetched again, its crawl, its indexing. */
function StatusPanel({
  knowledgebaseId,
  detail,
  crawl,
}: {
  knowledgebaseId: string;
  detail: SourceDetail;
  /** The crawl that found it, as the knowledgebase lists it. */
  crawl: CrawlSummary | undefined;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { source, job } = detail;
  const retry = useMutation(
    trpc.knowledge.retrySource.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() }),
    }),
  );
  return (
    <Panel title="Status">
      <ErrorAlert title="Indexing failed" error={source.errorMessage} testId="source-error" />
      <dl className="source-facts">
        <dt>Type</dt>
        <dd>{sourceTypeWords(source.type)}</dd>
        <dt>Size</dt>
        <dd>{source.sizeBytes ? formatFileSize(source.sizeBytes) : "—"}</dd>
        <dt>Added</dt>
        <dd>
          <When at={source.createdAt} /> <span className="muted">{sourceAddedWords(source.createdVia)}</span>
        </dd>
        <dt>Last change</dt>
        <dd>
          <When at={source.updatedAt} />
        </dd>
        {source.url && (
          <>
            <dt>URL</dt>
            <dd className="wrap-anywhere">{source.url}</dd>
            <dt>Kept fresh</dt>
            <dd>
              <KeptFresh knowledgebaseId={knowledgebaseId} detail={detail} />
            </dd>
          </>
        )}
        {source.crawlId && (
          <>
            <dt>Crawl</dt>
            <dd className="wrap-anywhere">
              {/* By its start URL, on the knowledgebase's page, where its pages are listed under it. */}
              found by{" "}
              {crawl ? <Link href={`/knowledge/${knowledgebaseId}`}>the crawl of {crawl.startUrl}</Link> : "a crawl"}
            </dd>
          </>
        )}
        <dt>Search</dt>
        <dd>{source.disabled ? "Turned off" : source.searchable ? "Searchable" : "Not searchable"}</dd>
        {job && (
          <>
            <dt>Indexing</dt>
            <dd data-testid="source-job">
              {indexingWords(job.status)} since <When at={job.startedAt ?? job.queuedAt} />, attempt {job.attempts}
              {job.chunksTotal > 0 && (
                <div data-testid="source-progress">
                  <progress max={job.chunksTotal} value={job.chunksWritten} aria-label="Chunks written" />{" "}
                  {job.chunksWritten.toLocaleString()} of {job.chunksTotal.toLocaleString()} chunks written
                </div>
              )}
              {job.lastError && <div className="failure-reason">Last attempt: {job.lastError}</div>}
            </dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code>{source.id}</code> <CopyButton text={source.id} label="Copy id" />
        </dd>
      </dl>
      {source.status === "failed" && (
        <button
          type="button"
          onClick={() => retry.mutate({ knowledgebaseId, sourceId: source.id })}
          disabled={retry.isPending}
        >
          Retry indexing
        </button>
      )}
      <ErrorAlert error={retry.error} />
    </Panel>
  );
}

/** How often a URL source is fetched again (members change it), when it was and will be, and a failed refresh's reason. */
function KeptFresh({ knowledgebaseId, detail }: { knowledgebaseId: string; detail: SourceDetail }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mayWrite = useMay("write");
  const { source } = detail;
  const refresh = useMutation(
    trpc.knowledge.updateSource.mutationOptions({
      onSuccess: ({ source: updated }) => {
        notifyDone(updated.refresh ? `Fetched again ${updated.refresh}.` : "No longer fetched again.");
        void queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
      },
    }),
  );
  return (
    <>
      <Select
        aria-label="Kept fresh"
        value={source.refresh ?? ""}
        disabled={refresh.isPending || !mayWrite}
        onChange={(event) =>
          refresh.mutate({
            knowledgebaseId,
            sourceId: source.id,
            refresh: event.target.value === "daily" || event.target.value === "weekly" ? event.target.value : null,
          })
        }
        options={[
          { value: "daily", label: "Daily" },
          { value: "weekly", label: "Weekly" },
        ]}
        placeholder="No, fetched once"
      />
      {source.refresh && (
        <span className="muted">
          {" "}
          {source.checkedAt ? `Last fetched ${whenWords(source.checkedAt)}` : "Not fetched yet"}
          {detail.refreshDueAt && `, next ${whenWords(detail.refreshDueAt)}`}
        </span>
      )}
      <ErrorAlert error={refresh.error} />
      {source.refreshError && (
        <div className="failure-reason">
          The last refresh failed (the text below is the last good one): {source.refreshError}
        </div>
      )}
    </>
  );
}

/** The text extracted from the source (its first characters when it is long). */
function ExtractedTextPanel({ detail }: { detail: SourceDetail }) {
  return (
    <Panel title="Extracted text">
      {detail.textChars === 0 ? (
        <p className="muted">
          {detail.source.status === "ready"
            ? "No text was extracted."
            : "The text appears here once the source is indexed."}
        </p>
      ) : (
        <>
          <p className="muted">
            {detail.textChars.toLocaleString()} characters
            {detail.text.length < detail.textChars
              ? `; the first ${detail.text.length.toLocaleString()} are shown`
              : ""}
            .
          </p>
          <pre className="source-text" data-testid="source-text" tabIndex={0} aria-label="Extracted text">
            {detail.text}
          </pre>
        </>
      )}
    </Panel>
  );
}

/** The chunks search and agents read, each under the headings above it. */
function ChunksPanel({ detail }: { detail: SourceDetail }) {
  return (
    <Panel title="Chunks">
      <p className="muted">
        What search and agents read: {detail.chunkCount} chunk{detail.chunkCount === 1 ? "" : "s"}, each under the
        headings above it
        {detail.chunks.length < detail.chunkCount ? `; the first ${detail.chunks.length} are shown` : ""}.
      </p>
      <DataTable
        label="Chunks table"
        rows={detail.chunks}
        rowKey={(chunk) => String(chunk.position)}
        rowTestId="source-chunk"
        empty={detail.source.status === "ready" ? "No chunks." : "Chunks appear here once the source is indexed."}
        columns={[
          { key: "position", header: "#", nowrap: true, cell: (chunk) => chunk.position + 1 },
          { key: "heading", header: "Under", cell: (chunk) => chunk.heading || <span className="muted">(top)</span> },
          {
            key: "text",
            header: "Text",
            cell: (chunk) => (
              <span className="chunk-text">
                {chunk.text}
                {chunk.text.length < chunk.textChars ? "…" : ""}
              </span>
            ),
          },
        ]}
      />
    </Panel>
  );
}
