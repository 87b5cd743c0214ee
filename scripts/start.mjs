// `npm start`: compiles the launcher and server when dist/server is missing or older than the
// sources (about a second), then runs the launcher (src/cli/start.ts) in this process on node;
// the launcher then serves HTTP from this same process. package.json's script passes the heap
// limits (SERVER_HEAP_MB, SERVER_YOUNG_MB) to node, which fixes them at start-up.
import { serverBuildIsStale } from "./build-server.mjs";

// npm puts the `node` dependency's Node.js 24 first on the PATH; an older one means the script was
// started another way (docs/operations.md, "Runtime"), and the server would run on it untested.
if (Number(process.versions.node.split(".")[0]) < 24) {
  console.error(`Node.js ${process.version} is older than the supported 24: start Atrium with \`npm start\`.`);
  process.exit(1);
}

if (serverBuildIsStale()) {
  const esbuild = await import("esbuild");
  const { buildServer } = await import("./build-server.mjs");
  await buildServer();
  // esbuild keeps a helper process for later builds; this process will not build again.
  await esbuild.stop();
}
await import("../dist/server/start.mjs");
