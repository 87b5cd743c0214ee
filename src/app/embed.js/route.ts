// The embed script: defines <atrium-chat> for the organization's own pages.
import { embedScriptRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  return embedScriptRoute(request);
}
