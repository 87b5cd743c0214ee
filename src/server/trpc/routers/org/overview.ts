// The console's home and navigation badge; console only (no REST path).
import { Overview } from "@/schemas/org/overview";
import { getOverview } from "@/server/services/org/overview";
import { memberProcedure, router } from "../../init";

export const overviewRouter = router({
  get: memberProcedure(getOverview.requirement)
    .output(Overview)
    .query(({ ctx }) => getOverview(ctx.db, ctx.actor)),
});
