// The console's home and navigation badges; console only (no REST path).
import { Overview, Waiting } from "@/schemas/org/overview";
import { getOverview, getWaiting } from "@/server/services/org/overview";
import { router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const overviewRouter = router({
  get: memberCalls.query(getOverview, Overview),
  waiting: memberCalls.query(getWaiting, Waiting),
});
