// The root router. Static REST paths are matched in registration order (first match wins),
// so keep routers with static segments ahead of parameterized siblings.
import { router } from "./init";
import { apiKeysRouter } from "./routers/api-keys";
import { authRouter } from "./routers/auth";
import { agentsRouter, appsRouter, flowsRouter } from "./routers/builder";
import { membersRouter } from "./routers/members";
import { modelsRouter } from "./routers/models";
import { organizationRouter } from "./routers/organization";

export const appRouter = router({
  auth: authRouter,
  organization: organizationRouter,
  members: membersRouter,
  apiKeys: apiKeysRouter,
  models: modelsRouter,
  agents: agentsRouter,
  flows: flowsRouter,
  apps: appsRouter,
});

export type AppRouter = typeof appRouter;
