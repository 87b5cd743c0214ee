// A flow's `code` node: JavaScript run in QuickJS compiled to WebAssembly (quickjs-emscripten),
// never in Node's own engine. The sandbox has no network, no file system and no host objects
// (nothing is exposed to it but the JSON it is handed), its heap is capped and an interrupt
// handler stops it at its deadline. The evaluation is synchronous on the calling thread, so the
// time bound is also how long one code node can hold the process.
import type { QuickJSWASMModule } from "quickjs-emscripten";

export const CODE_LIMITS = {
  /** Heap of one evaluation, in bytes. */
  memoryBytes: 64 * 1024 * 1024,
  /** Wall time of one evaluation, in milliseconds. */
  timeMs: 5_000,
  /** Stack of one evaluation, in bytes (deep recursion ends as a failure, not a crash). */
  stackBytes: 256 * 1024,
};

export type CodeOutcome =
  | { ok: true; output: string }
  | { ok: false; bound: "code time" | "code memory" }
  | { ok: false; bound?: undefined; message: string };

/**
 * A WebAssembly module of its own for each evaluation: nothing one run leaves behind (a heap
 * grown to its limit, a runtime QuickJS could not tear down after a breach) reaches the next.
 * The library is loaded only when a flow first runs a code node.
 */
async function freshModule(): Promise<QuickJSWASMModule> {
  const lib = await import("quickjs-emscripten");
  return lib.newQuickJSWASMModule(lib.RELEASE_SYNC);
}

/**
 * Runs `code` as the body of a function of `input` (JSON) and hands back what it returns: text
 * as it is, anything else as JSON (nothing is empty text).
 */
export async function runCode(code: string, input: unknown): Promise<CodeOutcome> {
  const runtime = (await freshModule()).newRuntime();
  runtime.setMemoryLimit(CODE_LIMITS.memoryBytes);
  runtime.setMaxStackSize(CODE_LIMITS.stackBytes);
  const deadline = Date.now() + CODE_LIMITS.timeMs;
  let interrupted = false;
  runtime.setInterruptHandler(() => (interrupted = Date.now() > deadline));
  const context = runtime.newContext();
  try {
    const source = `(() => { const input = JSON.parse(__input); const result = (function (input) {\n${code}\n})(input);
      return typeof result === "string" ? result : result === undefined ? "" : JSON.stringify(result) ?? ""; })()`;
    const handle = context.newString(JSON.stringify(input ?? null));
    context.setProp(context.global, "__input", handle);
    handle.dispose();
    const result = context.evalCode(source, "code.js");
    if (result.error) {
      const error = context.dump(result.error) as { name?: string; message?: string } | string;
      result.error.dispose();
      if (interrupted) return { ok: false, bound: "code time" };
      const message =
        typeof error === "object" && error ? `${error.name ?? "Error"}: ${error.message ?? ""}` : String(error);
      if (/out of memory/i.test(message)) return { ok: false, bound: "code memory" };
      return { ok: false, message };
    }
    const output = context.getString(result.value);
    result.value.dispose();
    return { ok: true, output };
  } catch (error) {
    // The allocator gives up past the heap limit in ways QuickJS cannot always turn into an exception.
    if (interrupted) return { ok: false, bound: "code time" };
    if (/memory|allocat/i.test(String(error))) return { ok: false, bound: "code memory" };
    throw error;
  } finally {
    // After a breach QuickJS may fail its own teardown checks; the module is dropped either way.
    try {
      context.dispose();
      runtime.dispose();
    } catch {
      /* the whole module goes with this evaluation */
    }
  }
}
