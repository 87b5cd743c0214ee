// The worker thread of a flow's `code` node (code-sandbox.ts starts one per evaluation). Plain
// JavaScript so that it runs as it is, unbundled, beside the Next.js build. The code runs in QuickJS
// compiled to WebAssembly, in a module of its own: it sees only the JSON it is handed, never this
// thread's globals; its heap is capped and an interrupt handler stops it at its deadline.
import { parentPort, workerData } from "node:worker_threads";
import { newQuickJSWASMModule, RELEASE_SYNC } from "quickjs-emscripten";

const { code, input, memoryBytes, stackBytes, timeMs } = workerData;

function evaluate(module) {
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(stackBytes);
  const deadline = Date.now() + timeMs;
  let interrupted = false;
  runtime.setInterruptHandler(() => (interrupted = Date.now() > deadline));
  const context = runtime.newContext();
  try {
    const source = `(() => { const input = JSON.parse(__input); const result = (function (input) {\n${code}\n})(input);
      return typeof result === "string" ? result : result === undefined ? "" : JSON.stringify(result) ?? ""; })()`;
    const handle = context.newString(input);
    context.setProp(context.global, "__input", handle);
    handle.dispose();
    const result = context.evalCode(source, "code.js");
    if (result.error) {
      const error = context.dump(result.error);
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
    // Past the heap limit the allocator can fail in ways QuickJS does not turn into an exception.
    if (interrupted) return { ok: false, bound: "code time" };
    if (/memory|allocat/i.test(String(error))) return { ok: false, bound: "code memory" };
    return { ok: false, message: `the sandbox failed (${String(error)})` };
  } finally {
    // After a breach QuickJS may fail its own teardown checks; the module goes with this thread.
    try {
      context.dispose();
      runtime.dispose();
    } catch {
      /* nothing to keep */
    }
  }
}

parentPort.postMessage(evaluate(await newQuickJSWASMModule(RELEASE_SYNC)));
