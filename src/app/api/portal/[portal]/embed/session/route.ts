// The embedded chat's token exchange: a signed embed token for an end-user session.
import { embedSessionRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ portal: string }> }): Promise<Response> {
  const { portal } = await params;
  return embedSessionRoute(request, portal);
}
