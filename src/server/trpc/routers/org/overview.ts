// The console's home and navigation badge; console only (no REST path).
import { Overview } from "@/schemas/org/overview";
import { getOverview } from "@/server/services/org/overview";
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const overviewRouter = router({
  get: memberCalls.query(getOverview, Overview),
});
