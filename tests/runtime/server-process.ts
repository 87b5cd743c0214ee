// One server process for the fault tests (tests/runtime/lost-runs.test.ts): the production
// listener and workers `npm start` serves (src/cli/http-server.ts) on PORT, over the test file's
// database, stopped by SIGTERM as `npm start` stops it.
import { serve } from "@/cli/http-server";

const server = await serve({ port: Number(process.env.PORT), trustProxy: 0 });
process.stdout.write("listening\n");
process.once("SIGTERM", () => {
  void server.stop().then(() => process.exit(0));
});
