import {
  ApproveReviewsInput,
  ApproveReviewsOutput,
  ListReviewsInput,
  ListReviewsOutput,
  RejectReviewInput,
  ReviewAuthorsInput,
  ReviewAuthorsOutput,
  ReviewIdInput,
  ReviewOutput,
} from "@/schemas/knowledge/review";
import {
  approveReview,
  approveReviews,
  getReview,
  listReviewAuthors,
  listReviews,
  rejectReview,
} from "@/server/services/knowledge/reviews";
import { memberProcedure, router } from "../../init";

/** Console only: reviews are decided by people, never with an API key. */
export const reviewsRouter = router({
  list: memberProcedure(listReviews.requirement)
    .input(ListReviewsInput)
    .output(ListReviewsOutput)
    .query(({ ctx, input }) => listReviews(ctx.db, ctx.actor, input)),
  authors: memberProcedure(listReviewAuthors.requirement)
    .input(ReviewAuthorsInput)
    .output(ReviewAuthorsOutput)
    .query(({ ctx, input }) => listReviewAuthors(ctx.db, ctx.actor, input)),
  get: memberProcedure(getReview.requirement)
    .input(ReviewIdInput)
    .output(ReviewOutput)
    .query(({ ctx, input }) => getReview(ctx.db, ctx.actor, input)),
  approve: memberProcedure(approveReview.requirement)
    .input(ReviewIdInput)
    .output(ReviewOutput)
    .mutation(({ ctx, input }) => approveReview(ctx.db, ctx.actor, input)),
  approveMany: memberProcedure(approveReviews.requirement)
    .input(ApproveReviewsInput)
    .output(ApproveReviewsOutput)
    .mutation(({ ctx, input }) => approveReviews(ctx.db, ctx.actor, input)),
  reject: memberProcedure(rejectReview.requirement)
    .input(RejectReviewInput)
    .output(ReviewOutput)
    .mutation(({ ctx, input }) => rejectReview(ctx.db, ctx.actor, input)),
});
