// The files a conversation turn uses: checked and stored before the run, read again when a paused
// run continues, and handed to the run as passages and images.
import type { Prisma } from "@/generated/prisma/client";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { chunkMarkdown } from "@/server/jobs/chunking";
import type { Passage, TurnImage } from "@/server/runtime/model-types";
import { overlap } from "@/server/runtime/text";
import {
  checkFileBounds,
  isImageFormat,
  sniffFormat,
  unsupported,
  uploadFiles,
  type UploadedFile,
} from "./attachments";

/**
 * A turn's files: those the message it replaces carried (a regenerated turn), those it was given
 * by id and those it carried, in that order.
 */
export interface TurnFiles {
  /** The user message a regenerated turn replaces: its files go on to the new one. */
  keptFrom?: string;
  fileIds?: string[];
  files?: UploadedFile[];
}

export interface TurnAttachment {
  id: string;
  name: string;
  format: string;
  contentType: string;
  text: string | null;
  bytes: Uint8Array;
}

const TURN_ATTACHMENT_SELECT = {
  id: true,
  name: true,
  format: true,
  contentType: true,
  text: true,
  content: true,
} satisfies Prisma.AttachmentSelect;

type TurnAttachmentRow = Prisma.AttachmentGetPayload<{ select: typeof TURN_ATTACHMENT_SELECT }>;

function turnAttachment(row: TurnAttachmentRow): TurnAttachment {
  const { content, ...rest } = row;
  return { ...rest, bytes: content };
}

/**
 * The files a turn uses, checked before anything runs: the ids must name files of the turn's
 * owner (the end user the turn is for, else the member or key that sends it) not yet used by
 * another conversation; carried files are stored for that owner. Not found otherwise. The files
 * of the message a regenerated turn replaces are the conversation's already, whoever sent them.
 */
export async function resolveTurnFiles(
  db: Db,
  actor: Actor | EndUserActor,
  endUserId: string | null,
  conversationId: string,
  turn: TurnFiles,
  acceptsImages: () => Promise<boolean>,
): Promise<TurnAttachment[]> {
  const kept = turn.keptFrom
    ? await db.attachment.findMany({
        where: { organizationId: actor.organizationId, conversationId, messageId: turn.keptFrom },
        select: TURN_ATTACHMENT_SELECT,
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      })
    : [];
  const ids = [...new Set((turn.fileIds ?? []).map((id) => id.toLowerCase()))].filter(
    (id) => !kept.some((row) => row.id === id),
  );
  const carried = turn.files ?? [];
  if (kept.length === 0 && ids.length === 0 && carried.length === 0) return [];
  checkFileBounds([
    ...[...kept.map((row) => row.id), ...ids].map((id) => ({ name: id, size: 1 })),
    ...carried.map((file) => ({ name: file.name, size: file.bytes.byteLength })),
  ]);
  const owner =
    actor.kind === "end_user" || endUserId
      ? { endUserId: endUserId ?? (actor as EndUserActor).endUser.id }
      : { endUserId: null, ...(actor.kind !== "operator" && actor.member ? { memberId: actor.member.id } : {}) };
  const found = ids.length
    ? await db.attachment.findMany({
        where: {
          id: { in: ids },
          organizationId: actor.organizationId,
          ...owner,
          OR: [{ conversationId: null }, { conversationId }],
        },
        select: TURN_ATTACHMENT_SELECT,
      })
    : [];
  const missing = ids.find((id) => !found.some((row) => row.id === id));
  if (missing) throw new AppError("not_found", `No file with id ${missing}.`);
  const image =
    [...kept, ...found].find((row) => isImageFormat(row.format)) ??
    carried.find((file) => {
      const format = sniffFormat(file.bytes, file.name);
      return format !== null && isImageFormat(format);
    });
  if (image && !(await acceptsImages()))
    throw unsupported(
      `${image.name} is an image, and none of this app's models accepts images; attach a document, or use an app whose model reads images.`,
    );
  const stored = carried.length
    ? (
        await uploadFiles(db, actor, {
          files: carried,
          ...(endUserId && actor.kind !== "end_user" ? { endUserId } : {}),
        })
      ).files
    : [];
  const storedRows = stored.length
    ? await db.attachment.findMany({
        where: { id: { in: stored.map((file) => file.id) }, organizationId: actor.organizationId },
        select: TURN_ATTACHMENT_SELECT,
      })
    : [];
  const byId = new Map([...found, ...storedRows].map((row) => [row.id, row]));
  return [...kept, ...[...ids, ...stored.map((file) => file.id)].map((id) => byId.get(id)!)].map(turnAttachment);
}

/**
 * The files of a turn that paused for an approval, read again when its run continues: those still
 * stored (an erasure in between takes them), in the order the turn gave them.
 */
export async function pausedTurnFiles(
  db: Db,
  organizationId: string,
  conversationId: string,
  ids: readonly string[],
): Promise<TurnAttachment[]> {
  if (ids.length === 0) return [];
  const rows = await db.attachment.findMany({
    where: { id: { in: [...ids] }, organizationId, conversationId },
    select: TURN_ATTACHMENT_SELECT,
  });
  return ids.flatMap((id) => {
    const row = rows.find((one) => one.id === id);
    return row ? [turnAttachment(row)] : [];
  });
}

/** Passages of one file a turn reads: the best-matching chunks of its text, else its opening. */
const PASSAGES_PER_FILE = 4;

/**
 * The attached documents' text as passages the run's agents read and cite like knowledge: per
 * file, the chunks that share the most words with the message (its opening when none does).
 */
export function attachmentPassages(attachments: readonly TurnAttachment[], message: string): Passage[] {
  return attachments.flatMap((attachment) => {
    if (!attachment.text) return [];
    const chunks = chunkMarkdown(attachment.text).map((chunk, position) => ({
      ...chunk,
      position,
      score: overlap(message, chunk.text),
    }));
    const matched = chunks
      .filter((chunk) => chunk.score > 0)
      .sort((a, b) => b.score - a.score || a.position - b.position);
    const chosen = (matched.length ? matched : chunks).slice(0, PASSAGES_PER_FILE);
    return chosen
      .sort((a, b) => a.position - b.position)
      .map((chunk): Passage => ({
        title: attachment.name,
        text: chunk.text,
        from: {
          kind: "attachment",
          id: attachment.id,
          knowledgebaseId: null,
          title: attachment.name,
          heading: chunk.heading,
        },
      }));
  });
}

/** The images attached to a turn, as models are given them. */
export function attachmentImages(attachments: readonly TurnAttachment[]): TurnImage[] {
  return attachments
    .filter((attachment) => isImageFormat(attachment.format))
    .map((attachment) => ({ mediaType: attachment.contentType, data: attachment.bytes }));
}
