// The console chat's uploads: one file for a signed-in member's next turn.
import { consoleFilesRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  return consoleFilesRoute(request);
}
