import { z } from "zod";
import { ListQuery, NextCursor, plainText, Timestamp, Uuid } from "../common";
import { MAX_BULK_REVIEWS, MAX_REVIEW_REASON_CHARS } from "../limits";

export const ReviewKind = z.enum(["page_create", "page_edit", "source"]);
export const ReviewStatus = z.enum(["pending", "approved", "rejected"]);

export const Review = z.object({
  id: Uuid,
  knowledgebaseId: Uuid,
  knowledgebaseName: z.string(),
  kind: ReviewKind,
  status: ReviewStatus,
  pageId: Uuid.nullable(),
  sourceId: Uuid.nullable(),
  title: z.string(),
  baseMarkdown: z.string(),
  proposedMarkdown: z.string(),
  author: z.string().nullable(),
  authorId: Uuid.nullable().meta({
    description: "The author's member id, else the organization key's id; null for the operator.",
  }),
  pageChanged: z.boolean().meta({
    description: "Pending page write whose page no longer holds `baseMarkdown`: someone changed it since the proposal.",
  }),
  createdAt: Timestamp,
  decidedAt: Timestamp.nullable(),
  decidedBy: z.string().nullable(),
  rejectionReason: z.string().nullable(),
});
export type Review = z.infer<typeof Review>;

export const ReviewIdInput = z.strictObject({ reviewId: Uuid });
export const RejectReviewInput = z.strictObject({
  reviewId: Uuid,
  reason: plainText(MAX_REVIEW_REASON_CHARS).trim().optional(),
});
export type RejectReviewInput = z.infer<typeof RejectReviewInput>;
export const ListReviewsInput = ListQuery.extend({
  status: ReviewStatus.default("pending"),
  kind: ReviewKind.optional(),
  authorId: Uuid.optional(),
});
export type ListReviewsInput = z.infer<typeof ListReviewsInput>;
export const ListReviewsOutput = z.object({ reviews: z.array(Review), nextCursor: NextCursor });

export const ReviewAuthorsInput = z.strictObject({ status: ReviewStatus.default("pending") });
export const ReviewAuthorsOutput = z.object({
  authors: z.array(z.object({ authorId: Uuid, name: z.string(), count: z.number().int() })),
});

export const ApproveReviewsInput = z.strictObject({ reviewIds: z.array(Uuid).min(1).max(MAX_BULK_REVIEWS) });
export const ApproveReviewsOutput = z.object({
  approved: z.array(Review),
  failed: z.array(z.object({ reviewId: Uuid, code: z.string(), message: z.string() })),
});
export type ApproveReviewsOutput = z.infer<typeof ApproveReviewsOutput>;

export const ReviewOutput = z.object({ review: Review });
