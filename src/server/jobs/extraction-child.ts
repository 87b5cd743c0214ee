// The extraction worker's entry: a child process (started by extraction-process.ts with
// `node --import tsx`, its own heap limit and no inherited environment) that fetches, extracts
// and chunks one document, answers once over IPC and exits. Whatever a hostile document does
// here (inflate to gigabytes, loop, crash the parser) ends this process, never a server.
// It imports only relative modules: it runs from source, outside the Next.js bundle.
import { Worker } from "node:worker_threads";
import { chunkMarkdown, type Chunk } from "./chunking";
import { ExtractionFailed, extractText, typeOfBytes, typeOfContent, type SourceType } from "./extract";
import { FetchRefused, fetchUrl, type Fetched, type FetchLimits, type Validators } from "./fetch-url";
import { htmlLinks, isSitemap, sitemapLinks } from "./page-links";

export type ExtractionDocument =
  { kind: "bytes"; type: SourceType; bytes: Uint8Array } | { kind: "url"; url: string; limits?: FetchLimits };

/** A web page fetched again (conditional on its last validators) or by a crawl (with its links). */
export interface PageRequest {
  kind: "page";
  url: string;
  limits?: FetchLimits;
  validators?: Validators;
  links: boolean;
}

export interface ExtractionRequest {
  document: ExtractionDocument | PageRequest;
  maxChars: number;
}

export interface ExtractedDocument {
  text: string;
  type: SourceType;
  sizeBytes: number;
  chunks: Chunk[];
}

export type ExtractionAnswer = ({ ok: true } & ExtractedDocument) | { ok: false; message: string };

export type PageAnswer =
  | { ok: true; notModified: true }
  | {
      ok: true;
      notModified: false;
      /** Null for a sitemap, which only lists links. */
      document: ExtractedDocument | null;
      links: string[];
      validators: Validators;
    }
  | { ok: false; message: string };

/** What a fetched document is: an office file by its zip entries (whatever the server calls it), else its content type. */
function fetchedTypeOf(fetched: Fetched): SourceType {
  const type = typeOfBytes(fetched.bytes) ?? typeOfContent(fetched.contentType);
  if (!type)
    throw new ExtractionFailed(
      `The URL answered with content type "${fetched.contentType || "none"}"; only HTML, PDF, CSV, Markdown, plain text, DOCX, PPTX and XLSX can be indexed.`,
    );
  return type;
}

async function extractPage(request: PageRequest, maxChars: number): Promise<PageAnswer> {
  const fetched = await fetchUrl(request.url, { ...request.limits, purpose: "content" }, request.validators);
  if (fetched.notModified) return { ok: true, notModified: true };
  const { validators } = fetched;
  if (request.links && /xml/i.test(fetched.contentType)) {
    const xml = new TextDecoder().decode(fetched.bytes);
    if (isSitemap(xml))
      return { ok: true, notModified: false, document: null, links: sitemapLinks(xml, fetched.url), validators };
  }
  const type = fetchedTypeOf(fetched);
  const text = await extractText(type, fetched.bytes, { maxChars });
  const links =
    request.links && type === "html" ? await htmlLinks(new TextDecoder().decode(fetched.bytes), fetched.url) : [];
  const document = { text, type, sizeBytes: fetched.bytes.byteLength, chunks: chunkMarkdown(text) };
  return { ok: true, notModified: false, document, links, validators };
}

async function extractDocument({ document, maxChars }: ExtractionRequest): Promise<ExtractionAnswer | PageAnswer> {
  if (document.kind === "page") return extractPage(document, maxChars);
  let type: SourceType;
  let bytes: Uint8Array;
  if (document.kind === "url") {
    // A URL source comes from content: public addresses only, whatever the operator allows integrations.
    const fetched = await fetchUrl(document.url, { ...document.limits, purpose: "content" });
    type = fetchedTypeOf(fetched);
    bytes = fetched.bytes;
  } else {
    type = document.type;
    bytes = document.bytes;
  }
  const text = await extractText(type, bytes, { maxChars });
  return { ok: true, text, type, sizeBytes: bytes.byteLength, chunks: chunkMarkdown(text) };
}

function answerOf(error: unknown): { ok: false; message: string } {
  if (error instanceof ExtractionFailed || error instanceof FetchRefused) return { ok: false, message: error.message };
  const reason = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
  return { ok: false, message: `The document could not be read (${reason}).` };
}

/**
 * The server watches this process and kills it past a limit; if the server itself dies (kill -9),
 * nobody would. A thread of our own, which runs while the main thread is stuck in a parser, kills
 * the process once the server is gone or the time limit is well past.
 */
function guardAgainstOrphaning(serverPid: number, deadlineMs: number): void {
  const guard = new Worker(
    `const { workerData } = require("node:worker_threads");
    setInterval(() => {
      let serverAlive = process.ppid === workerData.serverPid;
      try { process.kill(workerData.serverPid, 0); } catch { serverAlive = false; }
      if (!serverAlive || Date.now() > workerData.deadline) process.kill(process.pid, "SIGKILL");
    }, 250);`,
    { eval: true, workerData: { serverPid, deadline: Date.now() + deadlineMs } },
  );
  guard.unref();
}

guardAgainstOrphaning(Number(process.argv[2]), Number(process.argv[3]));

process.once("message", (request: ExtractionRequest) => {
  extractDocument(request)
    .catch(answerOf)
    .then((answer) => process.send!(answer, undefined, {}, () => process.exit(0)));
});
// The server went away: nobody is waiting for the answer.
process.once("disconnect", () => process.exit(0));
process.send!({ ready: true });
