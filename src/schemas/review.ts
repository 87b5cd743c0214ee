import { z } from "zod";
import { ListQuery, NextCursor, Timestamp, Uuid } from "./common";

export const Review = z.object({
  id: Uuid,
  knowledgebaseId: Uuid,
  knowledgebaseName: z.string(),
  kind: z.enum(["page_create", "page_edit", "source"]),
  status: z.enum(["pending", "approved", "rejected"]),
  pageId: Uuid.nullable(),
  sourceId: Uuid.nullable(),
  title: z.string(),
  baseMarkdown: z.string(),
  proposedMarkdown: z.string(),
  author: z.string().nullable(),
  createdAt: Timestamp,
  decidedAt: Timestamp.nullable(),
  decidedBy: z.string().nullable(),
});
export type Review = z.infer<typeof Review>;

export const ReviewIdInput = z.strictObject({ reviewId: Uuid });
export const ListReviewsInput = ListQuery.extend({ status: z.enum(["pending", "approved", "rejected"]).default("pending") });
export type ListReviewsInput = z.infer<typeof ListReviewsInput>;
export const ListReviewsOutput = z.object({ reviews: z.array(Review), nextCursor: NextCursor });
