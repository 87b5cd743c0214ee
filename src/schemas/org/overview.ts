// The console's home: what the organization has so far, for its counts and the getting-started
// checklist; and what waits on its members, which the navigation shows as badges on every page.
import { z } from "zod";

export const Overview = z.object({
  creditsLeft: z.number().int(),
  keys: z.number().int(),
  knowledgebases: z.number().int(),
  agents: z.number().int(),
  flows: z.number().int(),
  apps: z.number().int(),
  /** Apps with a live version. */
  publishedApps: z.number().int(),
  /** Whether anyone has chatted yet (a count would read every conversation). */
  hasConversations: z.boolean(),
  /** Counted up to COUNT_CAP (src/lib/digits.ts); `endUsersAtLeast` when counting stopped there. */
  endUsers: z.number().int(),
  endUsersAtLeast: z.boolean(),
  portals: z.number().int(),
  members: z.number().int(),
});
export type Overview = z.infer<typeof Overview>;

export const Waiting = z.object({
  /** Agent writes to knowledge waiting in the review queue. */
  pendingReviews: z.number().int(),
  /** Runs paused at a flow's approval node, not decided yet. */
  pendingApprovals: z.number().int(),
});
export type Waiting = z.infer<typeof Waiting>;
