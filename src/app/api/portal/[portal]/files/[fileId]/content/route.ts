// The portal chat's downloads: a file for the signed-in end user who sent it.
import { portalFileContentRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function GET(
  request: Request,
  { params }: { params: Promise<{ portal: string; fileId: string }> },
): Promise<Response> {
  const { portal, fileId } = await params;
  return portalFileContentRoute(request, portal, fileId);
}
