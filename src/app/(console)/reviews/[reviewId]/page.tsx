"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { ReviewCard } from "@/components/review-card";
import { errorMessage, useTRPC } from "@/lib/trpc";

export default function ReviewPage() {
  const { reviewId } = useParams<{ reviewId: string }>();
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const review = useQuery(trpc.reviews.get.queryOptions({ reviewId }));
  const canDecide = me.data?.member.role === "admin" || me.data?.member.role === "owner";
  return (
    <>
      <p>
        <Link href="/reviews">← All reviews</Link>
      </p>
      {review.error && <p role="alert" className="error">{errorMessage(review.error)}</p>}
      {review.data && <ReviewCard review={review.data.review} canDecide={canDecide} />}
    </>
  );
}
