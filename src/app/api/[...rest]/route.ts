import { errorResponse, requestIdFor } from "@/server/adapters/rest";
import { AppError } from "@/server/errors";
import { observed } from "@/server/observability/observe";

export const dynamic = "force-dynamic";

function notFound(request: Request): Response {
  return errorResponse(new AppError("not_found", `No route ${request.method} ${new URL(request.url).pathname}.`), requestIdFor(request));
}

const handler = observed("/api/{unknown}", notFound);

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
