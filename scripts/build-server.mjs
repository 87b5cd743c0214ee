// Compiles the launcher (src/cli/start.ts), the HTTP server it loads once the database is ready
// (src/cli/http-server.ts), its setup step (src/cli/setup.ts) and the admin CLI (src/cli/admin.ts;
// the browser tests run it for every fresh organization, in half the time tsx takes) to plain
// JavaScript in dist/server, so that `npm start` runs them on node alone (no TypeScript loader in
// production). Packages stay in node_modules, shared with Next.js's server bundle; modules loaded
// with `await import()` become their own chunks, read only when first used. Run by `npm run
// build`, and by `npm start` when dist/server is missing or older than the sources.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const SERVER_DIST = path.join(root, "dist", "server");
const ENTRIES = ["src/cli/start.ts", "src/cli/setup.ts", "src/cli/admin.ts"];
const STAMP = path.join(SERVER_DIST, "start.mjs");

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Each entry's compiled file (src/cli/admin.ts → dist/server/admin.mjs). */
const OUTPUTS = ENTRIES.map((entry) => path.join(SERVER_DIST, `${path.basename(entry, ".ts")}.mjs`));

/**
 * True when an entry's compiled file is missing (a build from before the entry was added, too) or
 * a file under src/ or prisma/ changed after it was built.
 */
export function serverBuildIsStale() {
  if (!OUTPUTS.every((output) => existsSync(output))) return true;
  const built = statSync(STAMP).mtimeMs;
  return newestSource(path.join(root, "src")) > built || newestSource(path.join(root, "prisma")) > built;
}

export async function buildServer() {
  await bundleServer(ENTRIES, SERVER_DIST);
}

/** Prisma's query compiler, as the generated client (src/generated/prisma/internal/class.ts) imports it. */
const PRISMA_WASM = "@prisma/client/runtime/query_compiler_bg.postgresql.wasm-base64.mjs";

/**
 * Prisma's query compiler reaches the client as a module exporting its 2.6 MB of base64 text,
 * which the module then holds for the life of the process, beside the module's own source: 7 MB
 * of the server's memory at rest. The client only decodes it once, with Buffer.from(wasm,
 * "base64"), which reads an object through its Symbol.toPrimitive; so the server is given an
 * object that reads the same text from the package when asked, and lets it go.
 */
const prismaWasmOnDemand = {
  name: "prisma-wasm-on-demand",
  setup(build) {
    build.onResolve(
      { filter: /^@prisma\/client\/runtime\/query_compiler_bg\.postgresql\.wasm-base64\.mjs$/ },
      (args) => ({
        path: args.path,
        namespace: "prisma-wasm-on-demand",
      }),
    );
    build.onLoad({ filter: /.*/, namespace: "prisma-wasm-on-demand" }, () => ({
      loader: "js",
      contents: `import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
const file = fileURLToPath(import.meta.resolve(${JSON.stringify(PRISMA_WASM)}));
export const wasm = {
  [Symbol.toPrimitive]() {
    const text = readFileSync(file, "latin1");
    return text.slice(text.indexOf('"') + 1, text.lastIndexOf('"'));
  },
};`,
    }));
  },
};

/** Compiles `entryPoints` into `outdir` as the server's bundle is compiled (tests/runtime/lost-runs.test.ts too). */
export async function bundleServer(entryPoints, outdir) {
  // Loaded here, not at the top: `npm start` imports this file only to ask whether a build is stale.
  const { build } = await import("esbuild");
  await build({
    absWorkingDir: root,
    entryPoints,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    packages: "external",
    sourcemap: true,
    logLevel: "warning",
    tsconfig: path.join(root, "tsconfig.json"),
    plugins: [prismaWasmOnDemand],
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
