// Runs extraction apart from the web process: each PDF, CSV, HTML or fetched document, and each
// inline one too long to chunk in passing, is extracted and chunked by its own child process
// (extraction-child.ts) with a V8 heap limit, a watch on its whole memory (pdf.js inflates
// streams into buffers outside the heap), a time limit and a cap on the extracted text. A child that passes a bound is killed and its document fails with a plain
// reason; nothing it does can take the server down or be handed to another process.
import { fork } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { logger } from "@/server/observability/log";
import type {
  ExtractionAnswer,
  ExtractionDocument,
  ExtractionRequest,
  PageAnswer,
  PageRequest,
} from "./extraction-child";
import { MAX_EXTRACTED_CHARS } from "./extract";

export type { ExtractionAnswer, ExtractionDocument, PageAnswer, PageRequest };

export interface ExtractionLimits {
  /** V8 old-space limit of the child (--max-old-space-size). */
  heapMb: number;
  /** The child's resident memory, heap and buffers together; watched every 100 ms. */
  memoryMb: number;
  /** From the child's start to its answer, fetching included. */
  timeoutMs: number;
  /** Characters of extracted text. */
  maxChars: number;
}

export const EXTRACTION_LIMITS: ExtractionLimits = {
  heapMb: 256,
  memoryMb: 512,
  timeoutMs: 60_000,
  maxChars: MAX_EXTRACTED_CHARS,
};

/** Extraction workers one server process runs at once; more documents wait their turn. */
const CONCURRENT_WORKERS = 2;

/** The child could not be started or loaded: a fault of this installation, not of the document. */
export class ExtractionUnavailable extends Error {
  override readonly name = "ExtractionUnavailable";
}

/**
 * The worker runs from source with tsx, resolved from the project root (the working directory,
 * as for migrations): Next.js bundles server code, so the entry must be a real file.
 */
function workerEntry(): string {
  return path.join(process.cwd(), "src", "server", "jobs", "extraction-child.ts");
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

async function residentMb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null; // not Linux, or already gone: the heap limit still holds
  }
}

let running = 0;
const waiting: (() => void)[] = [];

async function turn(signal?: AbortSignal): Promise<() => void> {
  if (running >= CONCURRENT_WORKERS) {
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener("abort", abort);
        resolve();
      };
      const abort = () => {
        waiting.splice(waiting.indexOf(go), 1);
        reject(signal!.reason);
      };
      waiting.push(go);
      signal?.addEventListener("abort", abort, { once: true });
    });
  }
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

export interface ExtractionRun {
  /** Aborting kills the child; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with the child's pid once it is started (tests kill it). */
  onWorker?: (pid: number) => void;
}

/** Extracts one document in a child process under the limits. */
export function extractInChildProcess(
  document: ExtractionDocument,
  limits: Partial<ExtractionLimits> = {},
  run: ExtractionRun = {},
): Promise<ExtractionAnswer> {
  return inChildProcess<ExtractionAnswer>(document, limits, run);
}

/** Fetches a web page again or for a crawl, and extracts it, in a child process under the same limits. */
export function extractPageInChildProcess(
  page: PageRequest,
  limits: Partial<ExtractionLimits> = {},
  run: ExtractionRun = {},
): Promise<PageAnswer> {
  return inChildProcess<PageAnswer>(page, limits, run);
}

async function inChildProcess<Answer extends { ok: boolean }>(
  document: ExtractionRequest["document"],
  limits: Partial<ExtractionLimits>,
  run: ExtractionRun,
): Promise<Answer | { ok: false; message: string }> {
  const bounds = { ...EXTRACTION_LIMITS, ...limits };
  run.signal?.throwIfAborted();
  const release = await turn(run.signal);
  try {
    return await new Promise<Answer | { ok: false; message: string }>((resolve, reject) => {
      // The child's own guard (see extraction-child.ts) ends it if this process dies, or a little after the time limit.
      const child = fork(workerEntry(), [String(process.pid), String(bounds.timeoutMs + 5000)], {
        cwd: process.cwd(),
        execArgv: ["--import", "tsx", `--max-old-space-size=${bounds.heapMb}`],
        // Nothing from the server's environment (database URL, provider keys) reaches the child.
        env: { NODE_ENV: "production" },
        serialization: "advanced",
        stdio: ["ignore", "ignore", "pipe", "ipc"],
      });
      let ready = false;
      let settled = false;
      let stoppedBecause: string | undefined;
      let stderr = "";
      const outOfMemory = (limit: string) =>
        `Extraction ran out of memory (the limit is ${limit}); the document is too large, or built to inflate far beyond its size.`;

      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watch);
        run.signal?.removeEventListener("abort", abort);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        outcome();
      };
      const stop = (reason: string) => {
        stoppedBecause ??= reason;
        child.kill("SIGKILL");
      };
      const abort = () => settle(() => reject(run.signal!.reason));

      const timer = setTimeout(
        () => stop(`Extraction took longer than ${duration(bounds.timeoutMs)}, the limit for one document.`),
        bounds.timeoutMs,
      );
      const watch = setInterval(() => {
        if (child.pid === undefined) return;
        void residentMb(child.pid).then((mb) => {
          if (mb !== null && mb > bounds.memoryMb) stop(outOfMemory(`${bounds.memoryMb} MB`));
        });
      }, 100);
      run.signal?.addEventListener("abort", abort, { once: true });

      child.stderr!.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4096);
      });
      child.on("message", (message: Answer | { ready: true }) => {
        if ("ready" in message) ready = true;
        else settle(() => resolve(message));
      });
      child.on("error", (error) => {
        if (child.pid === undefined)
          settle(() => reject(new ExtractionUnavailable(`The extraction worker could not start: ${error.message}`)));
      });
      // "close", not "exit": it comes after the IPC channel is drained, so an answer sent just
      // before exiting is never mistaken for a worker that died.
      child.on("close", (code, signal) => {
        if (stoppedBecause) return settle(() => resolve({ ok: false, message: stoppedBecause! }));
        if (/heap out of memory|Allocation failed/i.test(stderr))
          return settle(() => resolve({ ok: false, message: outOfMemory(`${bounds.heapMb} MB of heap`) }));
        if (!ready && !signal) {
          // It never loaded: the installation's fault (tsx or the entry missing), logged for the operator.
          logger().error(
            `The extraction worker exited with code ${code} before it was ready: ${stderr.trim().split("\n").slice(-3).join(" | ")}`,
          );
          return settle(() => reject(new ExtractionUnavailable("The extraction worker could not start.")));
        }
        settle(() =>
          resolve({
            ok: false,
            message: `The extraction worker stopped unexpectedly (${signal ?? `exit code ${code}`}); the document was not indexed.`,
          }),
        );
      });

      const request: ExtractionRequest = { document, maxChars: bounds.maxChars };
      child.send(request, () => {});
      if (child.pid !== undefined) run.onWorker?.(child.pid);
    });
  } finally {
    release();
  }
}
