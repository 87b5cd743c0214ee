// The embed launcher's look: the portal's accent colour and name, for an allowed origin.
import { embedLookRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ portal: string }> }): Promise<Response> {
  const { portal } = await params;
  return embedLookRoute(request, portal);
}
