// The portal chat's uploads: one file for a signed-in end user's next turn.
import { portalFilesRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ portal: string }> }): Promise<Response> {
  return portalFilesRoute(request, (await params).portal);
}
