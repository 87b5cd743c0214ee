"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ReviewCard } from "@/components/review-card";
import { errorMessage, useTRPC } from "@/lib/trpc";

export default function ReviewsPage() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<"pending" | "approved" | "rejected">("pending");
  const me = useQuery(trpc.auth.me.queryOptions());
  const reviews = useQuery(trpc.reviews.list.queryOptions({ status }, { refetchInterval: 5000 }));
  const canDecide = me.data?.member.role === "admin" || me.data?.member.role === "owner";
  return (
    <>
      <h1>Reviews</h1>
      <p className="muted">Writes made with API keys wait here when the organization reviews agent writes (Settings).</p>
      <div className="row" role="tablist">
        {(["pending", "approved", "rejected"] as const).map((value) => (
          <button key={value} type="button" role="tab" aria-selected={status === value} className={status === value ? "primary" : undefined} onClick={() => setStatus(value)}>
            {value[0]!.toUpperCase() + value.slice(1)}
          </button>
        ))}
      </div>
      {reviews.error && <p role="alert" className="error">{errorMessage(reviews.error)}</p>}
      {reviews.data?.reviews.length === 0 && <p className="muted">Nothing {status}.</p>}
      {reviews.data?.reviews.map((review) => <ReviewCard key={review.id} review={review} canDecide={canDecide} />)}
    </>
  );
}
