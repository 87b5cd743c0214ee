// The server's bundle (scripts/build-server.mjs) gives Prisma its query compiler read from the
// package on demand, not as a module holding 2.6 MB of base64 text for the life of the process:
// the same bytes when decoded as the generated client decodes them, and none of the text kept.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { stop } from "esbuild";
import { afterAll, expect, it } from "vitest";
import { bundleServer } from "../../scripts/build-server.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const PRISMA_WASM = "@prisma/client/runtime/query_compiler_bg.postgresql.wasm-base64.mjs";
let dir: string | undefined;

afterAll(async () => {
  await stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("bundles Prisma's query compiler as a reader of the package's text: the same bytes, none of the text", async () => {
  await mkdir(path.join(root, "dist"), { recursive: true });
  dir = await mkdtemp(path.join(root, "dist", "server-bundle-"));
  const entry = path.join(dir, "entry.ts");
  await writeFile(
    entry,
    `export async function decoded() {
      const { wasm } = await import(${JSON.stringify(PRISMA_WASM)});
      return { bytes: Buffer.from(wasm, "base64"), held: typeof wasm };
    }`,
  );
  const out = path.join(dir, "out");
  await bundleServer([path.relative(root, entry)], out);

  const { decoded } = (await import(pathToFileURL(path.join(out, "entry.mjs")).href)) as {
    decoded: () => Promise<{ bytes: Buffer; held: string }>;
  };
  const { wasm } = (await import(PRISMA_WASM)) as { wasm: string };
  const { bytes, held } = await decoded();
  expect(bytes.equals(Buffer.from(wasm, "base64"))).toBe(true);
  expect(WebAssembly.validate(new Uint8Array(bytes))).toBe(true);
  // What the module keeps is the reader, not the text.
  expect(held).toBe("object");
});
