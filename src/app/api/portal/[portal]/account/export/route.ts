// The signed-in end user's own export: downloaded now (GET) or from a mailed link (POST {link}).
import { portalExportRoute } from "@/server/http/api-routes";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ portal: string }> };

export async function GET(request: Request, { params }: Params): Promise<Response> {
  return portalExportRoute(request, (await params).portal);
}

export async function POST(request: Request, { params }: Params): Promise<Response> {
  return portalExportRoute(request, (await params).portal);
}
