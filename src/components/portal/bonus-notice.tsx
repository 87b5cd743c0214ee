"use client";
// Tells the end user, on their next visit, of bonus credits given since they last read it.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { BonusNotice as Bonus } from "@/schemas/portal/portal";
import { usePortalTRPC } from "./portal-trpc";

export function BonusNotice({
  portal,
  bonuses,
  organization,
}: {
  portal: string;
  bonuses: Bonus[];
  organization: string;
}) {
  const trpc = usePortalTRPC();
  const queryClient = useQueryClient();
  const { t } = useTranslation();
  const dismiss = useMutation(
    trpc.me.dismissBonuses.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.me.get.queryKey({ portal }) }),
    }),
  );
  if (bonuses.length === 0) return null;
  return (
    <section className="panel portal-bonus" role="status" data-testid="bonus-notice">
      <ul>
        {bonuses.map((bonus) => (
          <li key={bonus.at}>
            {t("bonus.given", { organization, count: bonus.credits, plan: bonus.planName })}
            {bonus.reason && <span className="muted"> {t("bonus.why", { reason: bonus.reason })}</span>}
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => dismiss.mutate({ portal })} disabled={dismiss.isPending}>
        {t("bonus.dismiss")}
      </button>
    </section>
  );
}
