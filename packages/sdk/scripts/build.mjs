// `npm run build`: the SDK as ESM (dist/esm) and CommonJS (dist/cjs), each with its types, with
// the TypeScript of this package's own devDependencies (or the workspace's), no global tsc.
import { execFileSync } from "node:child_process";
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const here = (path) => new URL(`../${path}`, import.meta.url);

rmSync(here("dist"), { recursive: true, force: true });
for (const [project, out] of [
  ["tsconfig.json", "dist/esm"],
  ["tsconfig.cjs.json", "dist/cjs"],
]) {
  execFileSync(process.execPath, [tsc, "-p", project], { cwd: here("."), stdio: "inherit" });
  // tsc does not copy declaration files: the generated types go beside each build.
  copyFileSync(here("src/schema.d.ts"), here(`${out}/schema.d.ts`));
}
// The package is "type": "module"; this marks the CommonJS build's .js and .d.ts files as CommonJS.
writeFileSync(here("dist/cjs/package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
