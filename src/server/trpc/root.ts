// The root router. Static REST paths are matched in registration order (first match wins),
// so keep routers with static segments ahead of parameterized siblings.
import { router } from "./init";
import { apiKeysRouter } from "./routers/api-keys";
import { knowledgeRouter } from "./routers/knowledge";
import { authRouter } from "./routers/auth";
import { membersRouter } from "./routers/members";
import { modelsRouter } from "./routers/models";
import { organizationRouter } from "./routers/organization";
import { reviewsRouter } from "./routers/reviews";

export const appRouter = router({
  auth: authRouter,
  organization: organizationRouter,
  members: membersRouter,
  apiKeys: apiKeysRouter,
  models: modelsRouter,
  knowledge: knowledgeRouter,
  reviews: reviewsRouter,
});

export type AppRouter = typeof appRouter;
