"use client";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import { ErrorAlert, PageHeader } from "@/components/console";
import { ReviewCard } from "@/components/review-card";
import { useTRPC } from "@/lib/trpc";
import { roleAtLeast } from "@/schemas/auth";

export default function ReviewPage() {
  const { reviewId } = useParams<{ reviewId: string }>();
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const review = useQuery(trpc.reviews.get.queryOptions({ reviewId }));
  const canDecide = me.data ? roleAtLeast(me.data.member.role, "admin") : false;
  return (
    <>
      <PageHeader title={review.data ? `Review: ${review.data.review.title || "untitled"}` : "Review"} back={{ href: "/reviews", label: "All reviews" }} />
      <ErrorAlert error={review.error} />
      {review.data && <ReviewCard review={review.data.review} canDecide={canDecide} />}
    </>
  );
}
