// The console's home: what the organization has so far, for the counts and the getting-started
// checklist, and the pending reviews the navigation shows as a badge.
import { z } from "zod";

export const Overview = z.object({
  creditsLeft: z.number().int(),
  creditsSpent: z.number().int(),
  keys: z.number().int(),
  knowledgebases: z.number().int(),
  agents: z.number().int(),
  flows: z.number().int(),
  apps: z.number().int(),
  /** Apps with a live version. */
  publishedApps: z.number().int(),
  conversations: z.number().int(),
  endUsers: z.number().int(),
  portals: z.number().int(),
  members: z.number().int(),
  pendingReviews: z.number().int(),
  /** Runs paused at a flow's approval node, not decided yet. */
  pendingApprovals: z.number().int(),
});
export type Overview = z.infer<typeof Overview>;
