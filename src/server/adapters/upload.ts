// The multipart door of POST /knowledgebases/{id}/sources: trpc-to-openapi reads JSON only, so
// the REST door (rest.ts) hands multipart/form-data requests here after its usual checks (key,
// plan, switch, rate limit, scope, role). Same service, same envelope, same headers.
import { isUuid } from "@/schemas/common";
import type { KeyActor } from "@/server/auth/actor";
import { rateLimitHeaders, type RateLimitResult } from "@/server/auth/rate-limit";
import type { Db } from "@/server/db";
import { MAX_TITLE_CHARS } from "@/schemas/limits";
import { MAX_UPLOAD_BYTES, SourceName } from "@/schemas/source";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/schemas/text";
import { AppError, invalidRequest, problemsFromIssues, toAppError } from "@/server/errors";
import { addSource } from "@/server/services/sources";
import { readBodyBytes } from "./json-body";
import { errorResponse } from "./envelope";

const SOURCES_PATH = /^\/knowledgebases\/([^/]+)\/sources$/;

function tooLarge(): AppError {
  return invalidRequest(
    [
      {
        path: "file",
        message: `The request is over the ${MAX_UPLOAD_BYTES / 1024 / 1024} MB upload limit; give a url for larger documents`,
      },
    ],
    413,
  );
}

export interface UploadRequest {
  db: Db;
  actor: KeyActor;
  rateLimit: RateLimitResult;
  request: Request;
  /** The path below /api/v1. */
  path: string;
  requestId: string;
}

export async function handleUpload({
  db,
  actor,
  rateLimit,
  request,
  path,
  requestId,
}: UploadRequest): Promise<Response> {
  const headers = new Headers(rateLimitHeaders(rateLimit));
  headers.set("X-Request-Id", requestId);
  try {
    const knowledgebaseId = SOURCES_PATH.exec(path)?.[1] ?? "";
    if (!isUuid(knowledgebaseId)) throw invalidRequest([{ path: "knowledgebaseId", message: "Invalid UUID" }]);
    const raw = await readBodyBytes(request, MAX_UPLOAD_BYTES, tooLarge);
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), {
        headers: { "content-type": request.headers.get("content-type")! },
      }).formData();
    } catch {
      throw invalidRequest([{ path: "body", message: "The multipart body could not be read" }]);
    }
    const problems: { path: string; message: string }[] = [];
    for (const field of form.keys()) {
      if (field !== "file" && field !== "name") problems.push({ path: field, message: "Unknown field" });
    }
    const fileParts = form.getAll("file").length;
    if (fileParts > 1)
      problems.push({ path: "file", message: `Send one file per request; this request has ${fileParts} file parts` });
    const file = form.get("file");
    const name = form.get("name");
    if (!(file instanceof Blob)) problems.push({ path: "file", message: "Required: the document as a file part" });
    if (name !== null) {
      const checked = SourceName.safeParse(name);
      if (!checked.success)
        problems.push(...problemsFromIssues(checked.error.issues).map((problem) => ({ ...problem, path: "name" })));
    }
    // The file name becomes the source's name when no `name` is given: the same rules apply.
    if (file instanceof File && !isStorableText(file.name))
      problems.push({ path: "file", message: `The file name: ${UNSTORABLE_TEXT_MESSAGE}` });
    if (file instanceof File && name === null && file.name.length > MAX_TITLE_CHARS) {
      problems.push({
        path: "file",
        message: `The file name is over ${MAX_TITLE_CHARS} characters; give a shorter one in the name field`,
      });
    }
    if (problems.length) throw invalidRequest(problems);
    const blob = file as File;
    const result = await addSource(
      db,
      actor,
      {
        knowledgebaseId,
        ...(typeof name === "string" ? { name: SourceName.parse(name) } : {}),
        file: { name: blob.name || "upload", contentType: blob.type, bytes: Buffer.from(await blob.arrayBuffer()) },
      },
      { idempotencyKey: request.headers.get("idempotency-key"), via: "upload" },
    );
    headers.set("Content-Type", "application/json");
    if (result.replayed) headers.set("Idempotent-Replayed", "true");
    return new Response(JSON.stringify(result.body), { status: result.status, headers });
  } catch (error) {
    return errorResponse(toAppError(error), requestId, headers);
  }
}
