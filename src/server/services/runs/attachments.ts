// Files attached to conversation turns (the contract's "Attachments"). A file is typed by its
// content, never its name; a document's text is extracted by the same sandboxed child process as
// knowledge sources (jobs/extraction-process.ts), under its bounds, so every format sources gain
// attachments gain too. A file belongs to whoever uploaded it (an end user, a member, an
// organization key) until a turn uses it, then to that turn's conversation: only its owner and the
// organization's admins read it, and it goes with the conversation (retention, erasure).
import type { z } from "zod";
import type { Prisma } from "@/generated/prisma/client";
import { roleAtLeast } from "@/schemas/identity/auth";
import {
  IMAGE_FORMATS,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENT_TEXT_CHARS,
  MAX_ATTACHMENTS_PER_TURN,
  type AttachmentFile,
  type AttachmentFormat,
  type FileIdInput,
} from "@/schemas/runs/attachment";
import { isUuid } from "@/schemas/common";
import { MAX_TITLE_CHARS } from "@/schemas/limits";
import { isStorableText } from "@/schemas/text";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, invalidRequest, type Problem } from "@/server/errors";
import { ExtractionFailed, extractText, typeOfFile, type SourceType } from "@/server/jobs/extract";
import { INLINE_CHUNKING_MAX_BYTES } from "@/server/jobs/indexing";
import { extractInChildProcess } from "@/server/jobs/extraction-process";
import { recordEvent } from "../org/events";
import { findActiveEndUser } from "../portal/portal-access";

export interface UploadedFile {
  name: string;
  bytes: Uint8Array;
}

const CONTENT_TYPES: Record<AttachmentFormat, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  text: "text/plain",
  markdown: "text/markdown",
  csv: "text/csv",
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
};

export function isImageFormat(format: string): format is (typeof IMAGE_FORMATS)[number] {
  return (IMAGE_FORMATS as readonly string[]).includes(format);
}

function startsWith(bytes: Uint8Array, signature: number[], at = 0): boolean {
  return signature.every((byte, i) => bytes[at + i] === byte);
}

/**
 * The file's format by its content: magic numbers for PDF and images, the package's part names
 * for Office files (a zip), valid UTF-8 without NUL for text, whose name then only says whether
 * it is Markdown or CSV. Null for anything else (an executable renamed report.pdf included).
 */
export function sniffFormat(bytes: Uint8Array, name: string): AttachmentFormat | null {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return "pdf";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "jpeg";
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "webp";
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    // Part names are stored uncompressed in the zip's headers.
    const names = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
    if (names.includes("[Content_Types].xml")) {
      if (names.includes("word/document.xml")) return "docx";
      if (names.includes("ppt/presentation.xml")) return "pptx";
      if (names.includes("xl/workbook.xml")) return "xlsx";
    }
    return null;
  }
  if (bytes.includes(0)) return null;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (extension === "md" || extension === "markdown") return "markdown";
  if (extension === "csv") return "csv";
  return "text";
}

const ACCEPTED = "PDF, DOCX, PPTX, XLSX, TXT, MD, CSV, PNG, JPEG or WebP";

export function unsupported(message: string): AppError {
  return new AppError("unsupported_attachment", message);
}

/** The bounds of one turn's files, every problem named, before anything is read or written. */
export function checkFileBounds(files: readonly { name: string; size: number }[], path = "file"): void {
  const problems: Problem[] = [];
  if (files.length > MAX_ATTACHMENTS_PER_TURN)
    problems.push({
      path,
      message: `At most ${MAX_ATTACHMENTS_PER_TURN} files a turn; this request has ${files.length}`,
    });
  files.forEach((file, index) => {
    const where = `${path}[${index}]`;
    if (file.size === 0) problems.push({ path: where, message: `${file.name || "The file"} is empty` });
    if (!isStorableText(file.name))
      problems.push({ path: where, message: "The file name holds unstorable characters" });
    if (file.name.length > MAX_TITLE_CHARS)
      problems.push({ path: where, message: `The file name is over ${MAX_TITLE_CHARS} characters` });
  });
  const tooLarge = files.filter((file) => file.size > MAX_ATTACHMENT_BYTES);
  if (tooLarge.length > 0)
    throw invalidRequest(
      tooLarge.map((file) => ({
        path,
        message: `${file.name || "A file"} is over the ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB limit for one file`,
      })),
      413,
    );
  if (problems.length) throw invalidRequest(problems);
}

/** Who a new file belongs to: the end user (theirs, or named by the API), else the member or key that sent it. */
async function ownerOf(db: Db, actor: Actor | EndUserActor, endUserId: string | undefined) {
  if (actor.kind === "end_user") return { endUserId: actor.endUser.id, memberId: null, apiKeyId: null };
  if (endUserId) await findActiveEndUser(db, actor.organizationId, endUserId);
  return {
    endUserId: endUserId ?? null,
    memberId: actor.kind === "operator" ? null : (actor.member?.id ?? null),
    apiKeyId: actor.kind === "key" && !actor.member ? actor.keyId : null,
  };
}

interface PreparedFile {
  name: string;
  format: AttachmentFormat;
  bytes: Uint8Array;
  text: string | null;
}

/** Types each file by content and extracts a document's text; nothing is written. */
async function prepareFiles(files: readonly UploadedFile[]): Promise<PreparedFile[]> {
  checkFileBounds(files.map((file) => ({ name: file.name, size: file.bytes.byteLength })));
  const typed = files.map((file) => {
    const format = sniffFormat(file.bytes, file.name);
    if (!format)
      throw unsupported(`${file.name || "The file"} is not a file chats accept (by its content): attach ${ACCEPTED}.`);
    return { ...file, format };
  });
  return Promise.all(
    typed.map(async (file): Promise<PreparedFile> => {
      if (isImageFormat(file.format)) return { name: file.name, format: file.format, bytes: file.bytes, text: null };
      // The extraction's own type: every format sources read (Office ones once the extraction child reads them).
      const type = typeOfFile(
        `attachment.${file.format === "markdown" ? "md" : file.format === "text" ? "txt" : file.format}`,
      );
      if (!type) throw unsupported(`${file.name}: ${file.format.toUpperCase()} files cannot be read in chats yet.`);
      return {
        name: file.name,
        format: file.format,
        bytes: file.bytes,
        text: await textOf(file.name, type, file.bytes),
      };
    }),
  );
}

/**
 * A document's text as sources get theirs (jobs/indexing.ts): short text or Markdown in this
 * process, where decoding takes less than starting a child; anything else in the extraction child.
 */
async function textOf(name: string, type: SourceType, bytes: Uint8Array): Promise<string> {
  if ((type === "text" || type === "markdown") && bytes.byteLength <= INLINE_CHUNKING_MAX_BYTES) {
    try {
      return await extractText(type, bytes, { maxChars: MAX_ATTACHMENT_TEXT_CHARS });
    } catch (error) {
      if (error instanceof ExtractionFailed) throw unsupported(`${name} could not be read: ${error.message}`);
      throw error;
    }
  }
  const answer = await extractInChildProcess({ kind: "bytes", type, bytes }, { maxChars: MAX_ATTACHMENT_TEXT_CHARS });
  if (!answer.ok) throw unsupported(`${name} could not be read: ${answer.message}`);
  return answer.text;
}

const FILE_SELECT = {
  id: true,
  name: true,
  format: true,
  contentType: true,
  sizeBytes: true,
  conversationId: true,
  createdAt: true,
} satisfies Prisma.AttachmentSelect;

function fileView(row: Prisma.AttachmentGetPayload<{ select: typeof FILE_SELECT }>): AttachmentFile {
  return { ...row, createdAt: row.createdAt.toISOString() };
}

/**
 * Stores files for a coming turn (POST /files, the chats' uploads, a multipart turn's parts).
 * Every check (count, size, type by content, the text's extraction) runs before the one write.
 */
export const uploadFiles = guarded(
  { scope: "apps:execute", endUsers: true },
  async function uploadFiles(
    db: Db,
    actor: Actor | EndUserActor,
    input: { files: UploadedFile[]; endUserId?: string },
  ): Promise<{ files: AttachmentFile[] }> {
    if (input.files.length === 0) throw invalidRequest([{ path: "file", message: "Required: at least one file part" }]);
    const owner = await ownerOf(db, actor, input.endUserId);
    const prepared = await prepareFiles(input.files);
    const rows = await db.$transaction(async (tx) => {
      const created = [];
      for (const file of prepared) {
        const row = await tx.attachment.create({
          data: {
            organizationId: actor.organizationId,
            ...owner,
            name: file.name || "attachment",
            format: file.format,
            contentType: CONTENT_TYPES[file.format],
            sizeBytes: file.bytes.byteLength,
            content: Buffer.from(file.bytes),
            text: file.text,
          },
          select: FILE_SELECT,
        });
        await recordEvent(tx, actor, {
          action: "file.upload",
          target: { type: "file", id: row.id, label: row.name },
        });
        created.push(row);
      }
      return created;
    });
    return { files: rows.map(fileView) };
  },
);

/**
 * The files a caller may read: an end user's own; a member's own, or all of the organization's
 * for an admin; all of the organization's for an organization key and the operator.
 */
function readableBy(actor: Actor | EndUserActor): Prisma.AttachmentWhereInput {
  const organizationId = actor.organizationId;
  if (actor.kind === "end_user") return { organizationId, endUserId: actor.endUser.id };
  if (actor.kind === "operator" || !actor.member) return { organizationId };
  if (roleAtLeast(actor.member.role, "admin")) return { organizationId };
  return { organizationId, memberId: actor.member.id };
}

/** A file the caller may read (readableBy), or not_found, as for one that does not exist. */
async function readableFile<S extends Prisma.AttachmentSelect>(
  db: Db,
  actor: Actor | EndUserActor,
  fileId: string,
  select: S,
): Promise<Prisma.AttachmentGetPayload<{ select: S }>> {
  const row = isUuid(fileId)
    ? await db.attachment.findFirst({
        where: { id: fileId.toLowerCase(), organizationId: actor.organizationId, ...readableBy(actor) },
        select,
      })
    : null;
  if (!row) throw new AppError("not_found", "No file with that id.");
  return row;
}

/** One file's details; a file the caller may not read is not_found, as one that does not exist. */
export const getFile = guarded(
  { scope: "apps:execute", endUsers: true },
  async function getFile(
    db: Db,
    actor: Actor | EndUserActor,
    input: z.infer<typeof FileIdInput>,
  ): Promise<{ file: AttachmentFile }> {
    return { file: fileView(await readableFile(db, actor, input.fileId, FILE_SELECT)) };
  },
);

/** One file's bytes as it was uploaded, for those who read its details (getFile). */
export const getFileContent = guarded(
  { scope: "apps:execute", endUsers: true },
  async function getFileContent(
    db: Db,
    actor: Actor | EndUserActor,
    input: z.infer<typeof FileIdInput>,
  ): Promise<{ name: string; contentType: string; bytes: Uint8Array }> {
    const row = await readableFile(db, actor, input.fileId, { name: true, contentType: true, content: true });
    return { name: row.name, contentType: row.contentType, bytes: row.content };
  },
);
