// The console chat's downloads: a file for the member who sent it and the organization's admins.
import { consoleFileContentRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ fileId: string }> }): Promise<Response> {
  return consoleFileContentRoute(request, (await params).fileId);
}
