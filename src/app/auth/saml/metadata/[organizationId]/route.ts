import { samlMetadataRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

export async function GET(
  request: Request,
  { params }: { params: Promise<{ organizationId: string }> },
): Promise<Response> {
  return samlMetadataRoute(request, (await params).organizationId);
}
