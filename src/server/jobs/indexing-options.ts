// The options of the background workers that fetch and index documents (indexing.ts,
// refresh.ts, crawl.ts), apart so that each can name them without importing the others.
import type { ExtractionLimits } from "./extraction-process";
import type { FetchLimits } from "./fetch-url";

export interface IndexingOptions {
  /** Bounds of URL sources' fetches (always public addresses only); tests allow their local server here. */
  fetchLimits?: FetchLimits;
  /** How long a claim holds before another worker may take the job over. */
  leaseMs?: number;
  /** Time allowed for one attempt. */
  attemptTimeoutMs?: number;
  /** Attempts before the source fails. */
  maxAttempts?: number;
  /** Total time from the first attempt before the source fails. */
  maxTotalMs?: number;
  /** Jobs claimed per round. */
  batch?: number;
  /** Called after a job is claimed, before it is worked on (tests use it to simulate a crash). */
  afterClaim?: (job: ClaimedJob) => Promise<void> | void;
  /** Bounds of the extraction child process (defaults: EXTRACTION_LIMITS). */
  extraction?: Partial<ExtractionLimits>;
  /** Called with the pid of each extraction child once started (tests kill it). */
  onExtractionWorker?: (pid: number) => void;
  /** Time allowed for writing a source's chunks and result (one transaction); each statement and lock wait too. */
  writeTimeoutMs?: number;
}

export interface ClaimedJob {
  id: string;
  sourceId: string;
  claimToken: string;
  attempts: number;
  startedAt: Date;
  lastError: string | null;
}
