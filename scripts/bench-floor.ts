// The floor of an authenticated API request on this machine, for `npm run bench`: a bare
// node:http server (no routing, fetch objects, tRPC or logging) that runs only the database work
// every `GET /api/v1/models` must do, through Atrium's own code: the key check with its rate-limit
// count (src/server/auth/authenticate.ts) and the organization's model list. What the real server
// answers beyond this is the cost of its request path; what this answers below the raw baseline
// is the cost of the database round trips themselves.
import http from "node:http";
import { authenticateApiKey } from "@/server/auth/authenticate";
import { createDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { listModels } from "@/server/services/org/models";

const db = createDb(process.env.DATABASE_URL!);
const server = http.createServer((request, response) => {
  authenticateApiKey(db, request.headers.authorization ?? null, "api")
    .then(({ actor }) => listModels(db, actor))
    .then(
      (models) => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(models));
      },
      (error: unknown) => {
        response.writeHead(error instanceof AppError ? error.status : 500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: String(error) }));
      },
    );
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.send?.("ready"));
