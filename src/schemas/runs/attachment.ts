// Files attached to a conversation turn (the contract's "Attachments"): their bounds and shapes.
import { z } from "zod";
import { Timestamp, Uuid } from "../common";

/** One attachment, in bytes. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Attachments one turn may carry. */
export const MAX_ATTACHMENTS_PER_TURN = 5;
/** A conversation's multipart request over REST (files and fields together), as for sources. */
export const MAX_TURN_UPLOAD_BYTES = 4.5 * 1024 * 1024;
/** A single upload (POST /files and the chats' uploads): one file and its form. */
export const MAX_FILE_REQUEST_BYTES = MAX_ATTACHMENT_BYTES + 64 * 1024;
/** Characters of an attachment's extracted text a turn keeps. */
export const MAX_ATTACHMENT_TEXT_CHARS = 500_000;

export const DOCUMENT_FORMATS = ["pdf", "docx", "pptx", "xlsx", "text", "markdown", "csv"] as const;
export const IMAGE_FORMATS = ["png", "jpeg", "webp"] as const;
export type AttachmentFormat = (typeof DOCUMENT_FORMATS)[number] | (typeof IMAGE_FORMATS)[number];

/** What the composer's picker offers (the server decides by content, whatever the name says). */
export const ATTACHMENT_ACCEPT = ".pdf,.docx,.pptx,.xlsx,.txt,.md,.csv,.png,.jpg,.jpeg,.webp";

export const AttachmentFile = z
  .object({
    id: Uuid,
    name: z.string(),
    format: z
      .string()
      .meta({ description: "By content: pdf, docx, pptx, xlsx, text, markdown, csv, png, jpeg or webp" }),
    contentType: z.string(),
    sizeBytes: z.number().int(),
    conversationId: Uuid.nullable().meta({ description: "Set once a turn used the file" }),
    createdAt: Timestamp,
  })
  .meta({ id: "File" });
export type AttachmentFile = z.infer<typeof AttachmentFile>;

export const FileIdInput = z.strictObject({ fileId: z.string().max(100) });
export const FileOutput = z.object({ file: AttachmentFile });

/** `fileIds` on a conversation turn, at every door. */
export const turnFileIds = z
  .array(Uuid)
  .max(MAX_ATTACHMENTS_PER_TURN)
  .optional()
  .meta({
    description: `Files uploaded with \`POST /files\` (at most ${MAX_ATTACHMENTS_PER_TURN} a turn), attached to this turn: a document's text becomes a passage the reply can cite, an image goes to models that accept images (422 \`unsupported_attachment\` when the app's models do not). Another caller's file is \`not_found\``,
  });
