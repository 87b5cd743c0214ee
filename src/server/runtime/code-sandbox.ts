// A flow's `code` node: JavaScript run in QuickJS compiled to WebAssembly (quickjs-emscripten),
// never in Node's own engine, on a worker thread of its own (code-worker.mjs) so that the server
// process keeps answering while it runs. The sandbox has no network, no file system and no host
// objects (nothing is exposed to it but the JSON it is handed); its heap is capped and an interrupt
// handler stops it at its deadline. Should QuickJS itself hang, the thread is terminated.
import path from "node:path";
import { Worker } from "node:worker_threads";

export const CODE_LIMITS = {
  /** Heap of one evaluation, in bytes. */
  memoryBytes: 64 * 1024 * 1024,
  /** Wall time of one evaluation, in milliseconds. */
  timeMs: 5_000,
  /** Stack of one evaluation, in bytes (deep recursion ends as a failure, not a crash). */
  stackBytes: 256 * 1024,
};

/** How long past its deadline a worker may take to answer before it is terminated (its start included). */
const TERMINATE_AFTER_MS = 5_000;

export type CodeOutcome =
  | { ok: true; output: string }
  | { ok: false; bound: "code time" | "code memory" }
  | { ok: false; bound?: undefined; message: string };

/**
 * The worker runs as a plain file from the project root (the working directory, as for the
 * extraction child and migrations): Next.js bundles server code, so the entry must be a real file.
 */
function workerEntry(): string {
  return path.join(process.cwd(), "src", "server", "runtime", "code-worker.mjs");
}

/**
 * Runs `code` as the body of a function of `input` (JSON) and hands back what it returns: text
 * as it is, anything else as JSON (nothing is empty text).
 */
export function runCode(code: string, input: unknown): Promise<CodeOutcome> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerEntry(), {
      workerData: { code, input: JSON.stringify(input ?? null), ...CODE_LIMITS },
      // QuickJS's heap lives in WebAssembly memory; the thread's own V8 heap stays small.
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      finish();
    };
    const timer = setTimeout(
      () => settle(() => resolve({ ok: false, bound: "code time" })),
      CODE_LIMITS.timeMs + TERMINATE_AFTER_MS,
    );
    worker.once("message", (outcome: CodeOutcome) => settle(() => resolve(outcome)));
    worker.once("error", (error: Error & { code?: string }) =>
      settle(() =>
        error.code === "ERR_WORKER_OUT_OF_MEMORY" ? resolve({ ok: false, bound: "code memory" }) : reject(error),
      ),
    );
    worker.once("exit", () => settle(() => reject(new Error("The code sandbox ended without an answer."))));
  });
}
