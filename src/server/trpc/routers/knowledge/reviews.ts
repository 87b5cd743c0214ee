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
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

/** Console only: reviews are decided by people, never with an API key. */
export const reviewsRouter = router({
  list: memberCalls.queryWith(listReviews, ListReviewsInput, ListReviewsOutput),
  authors: memberCalls.queryWith(listReviewAuthors, ReviewAuthorsInput, ReviewAuthorsOutput),
  get: memberCalls.queryWith(getReview, ReviewIdInput, ReviewOutput),
  approve: memberCalls.mutationWith(approveReview, ReviewIdInput, ReviewOutput),
  approveMany: memberCalls.mutationWith(approveReviews, ApproveReviewsInput, ApproveReviewsOutput),
  reject: memberCalls.mutationWith(rejectReview, RejectReviewInput, ReviewOutput),
});
