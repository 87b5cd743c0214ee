"use client";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import { ErrorAlert, PageHeader, useMay } from "@/components/console";
import { ReviewCard } from "@/components/review-card";
import { useTRPC } from "@/lib/trpc";

export default function ReviewPage() {
  const { reviewId } = useParams<{ reviewId: string }>();
  const trpc = useTRPC();
  const review = useQuery(trpc.reviews.get.queryOptions({ reviewId }));
  const canDecide = useMay("review");
  return (
    <>
      <PageHeader
        title={review.data ? `Review: ${review.data.review.title || "untitled"}` : "Review"}
        back={{ href: "/reviews", label: "All reviews" }}
      />
      <ErrorAlert error={review.error} />
      {review.data && <ReviewCard review={review.data.review} canDecide={canDecide} />}
    </>
  );
}
