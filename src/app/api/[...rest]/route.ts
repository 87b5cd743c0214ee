import { errorResponse, requestIdFor } from "@/server/adapters/rest";
import { AppError } from "@/server/errors";

export const dynamic = "force-dynamic";

function notFound(request: Request): Response {
  return errorResponse(new AppError("not_found", `No route ${request.method} ${new URL(request.url).pathname}.`), requestIdFor(request));
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
