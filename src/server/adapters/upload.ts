// The multipart door of POST /knowledgebases/{id}/sources, POST /files and a conversation turn's
// files: trpc-to-openapi reads JSON only, so the REST door (rest.ts) hands multipart/form-data
// requests here after its usual checks (key, plan, switch, rate limit, scope, role). Same
// services, same envelope, same headers.
import { isUuid } from "@/schemas/common";
import type { Actor, EndUserActor, KeyActor } from "@/server/auth/actor";
import { rateLimitHeaders, type RateLimitResult } from "@/server/auth/rate-limit";
import type { Db } from "@/server/db";
import { MAX_TITLE_CHARS } from "@/schemas/limits";
import { MAX_UPLOAD_BYTES, SourceName } from "@/schemas/knowledge/source";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/schemas/text";
import { AppError, invalidRequest, problemsFromIssues, toAppError } from "@/server/errors";
import { addSource } from "@/server/services/knowledge/sources";
import { checkFileBounds, uploadFiles, type UploadedFile } from "@/server/services/runs/attachments";
import {
  claimIdempotencyKey,
  finishIdempotencyKey,
  hashRequest,
  releaseIdempotencyKey,
} from "@/server/services/support/idempotency";
import {
  MAX_ATTACHMENT_BYTES,
  MAX_FILE_REQUEST_BYTES,
  MAX_TURN_UPLOAD_BYTES,
  type AttachmentFile,
} from "@/schemas/runs/attachment";
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

/** Reads a multipart body within `limit` bytes (413 `invalid_request` past it, as it arrives). */
async function readForm(request: Request, limit: number, tooLarge: () => AppError): Promise<FormData> {
  const raw = await readBodyBytes(request, limit, tooLarge);
  try {
    return await new Response(new Uint8Array(raw), {
      headers: { "content-type": request.headers.get("content-type")! },
    }).formData();
  } catch {
    throw invalidRequest([{ path: "body", message: "The multipart body could not be read" }]);
  }
}

async function filesOf(parts: FormDataEntryValue[]): Promise<UploadedFile[]> {
  return Promise.all(
    parts.map(async (part) =>
      part instanceof File
        ? { name: part.name, bytes: new Uint8Array(await part.arrayBuffer()) }
        : { name: "", bytes: Buffer.from(part) },
    ),
  );
}

/** A conversation turn sent as multipart/form-data: its JSON fields as form fields, its files as `file` parts. */
export interface TurnForm {
  body: Record<string, unknown>;
  files: UploadedFile[];
}

const BOOLEAN_FIELDS = new Set(["stream", "regenerate"]);

export async function readTurnForm(request: Request): Promise<TurnForm> {
  const form = await readForm(request, MAX_TURN_UPLOAD_BYTES, () =>
    invalidRequest(
      [
        {
          path: "file",
          message: `The request is over the ${MAX_TURN_UPLOAD_BYTES / 1024 / 1024} MB limit of a turn's upload; upload larger files with POST /files and pass fileIds`,
        },
      ],
      413,
    ),
  );
  const body: Record<string, unknown> = {};
  const fileIds: string[] = [];
  for (const [field, value] of form.entries()) {
    if (field === "file") continue;
    const text = typeof value === "string" ? value : "";
    if (field === "fileIds")
      fileIds.push(
        ...text
          .split(",")
          .map((id) => id.trim())
          .filter(Boolean),
      );
    else if (BOOLEAN_FIELDS.has(field)) body[field] = text === "true" ? true : text === "false" ? false : text;
    else body[field] = text;
  }
  if (fileIds.length) body.fileIds = fileIds;
  const files = await filesOf(form.getAll("file"));
  checkFileBounds([
    ...fileIds.map((id) => ({ name: id, size: 1 })),
    ...files.map((file) => ({ name: file.name, size: file.bytes.byteLength })),
  ]);
  return { body, files };
}

/**
 * One file for a coming turn, up to the size of one attachment: POST /files, and the console's
 * and portal's chat uploads (whose callers name no end user: they are one).
 */
export async function uploadFileResponse(
  db: Db,
  actor: Actor | EndUserActor,
  request: Request,
  headers: Headers,
): Promise<Response> {
  const form = await readForm(request, MAX_FILE_REQUEST_BYTES, () =>
    invalidRequest(
      [{ path: "file", message: `The file is over the ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB limit for one file` }],
      413,
    ),
  );
  const problems: { path: string; message: string }[] = [];
  for (const field of new Set(form.keys())) {
    if (field !== "file" && (field !== "endUserId" || actor.kind !== "key"))
      problems.push({ path: field, message: "Unknown field" });
  }
  const parts = form.getAll("file");
  if (parts.length !== 1)
    problems.push({ path: "file", message: `Send one file part; this request has ${parts.length}` });
  const endUserId = form.get("endUserId");
  if (endUserId !== null && (typeof endUserId !== "string" || !isUuid(endUserId)))
    problems.push({ path: "endUserId", message: "Invalid UUID" });
  if (problems.length) throw invalidRequest(problems);
  const files = await filesOf(parts);
  // An API key's Idempotency-Key replays the first upload's answer, as on every POST.
  const key = actor.kind === "key" ? request.headers.get("idempotency-key") : null;
  const hash = hashRequest(["POST /files", String(endUserId ?? ""), files[0]!.name, Buffer.from(files[0]!.bytes)]);
  const remembered = key === null ? null : await claimIdempotencyKey(db, actor.organizationId, key, hash);
  headers.set("Content-Type", "application/json");
  if (remembered) {
    headers.set("Idempotent-Replayed", "true");
    return new Response(JSON.stringify(remembered.body), { status: remembered.status, headers });
  }
  let body: { file: AttachmentFile };
  try {
    const result = await uploadFiles(db, actor, {
      files,
      ...(typeof endUserId === "string" ? { endUserId: endUserId.toLowerCase() } : {}),
    });
    body = { file: result.files[0]! };
  } catch (error) {
    if (key !== null) await releaseIdempotencyKey(db, actor.organizationId, key);
    throw error;
  }
  if (key !== null) await finishIdempotencyKey(db, actor.organizationId, key, { status: 201, body });
  return new Response(JSON.stringify(body), { status: 201, headers });
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
    if (path === "/files") return await uploadFileResponse(db, actor, request, headers);
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
