// The root router. Static REST paths are matched in registration order (first match wins),
// so keep routers with static segments ahead of parameterized siblings.
import { router } from "./init";
import { apiKeysRouter } from "./routers/api-keys";
import { knowledgeRouter } from "./routers/knowledge";
import { authRouter } from "./routers/auth";
import { conversationsRouter } from "./routers/conversations";
import { agentsRouter, appsRouter, flowsRouter } from "./routers/builder";
import { builderTemplatesRouter } from "./routers/builder-templates";
import { membersRouter } from "./routers/members";
import { mfaRouter } from "./routers/mfa";
import { securityRouter } from "./routers/security";
import { invitationsRouter } from "./routers/invitations";
import { endUsersRouter } from "./routers/end-users";
import { modelsRouter } from "./routers/models";
import { modelProvidersRouter } from "./routers/model-providers";
import { modelPricesRouter } from "./routers/model-prices";
import { mcpConnectionsRouter } from "./routers/mcp-connections";
import { organizationRouter } from "./routers/organization";
import { mailRouter } from "./routers/mail";
import { portalsRouter } from "./routers/portals";
import { runtimeRouter } from "./routers/runtime";
import { evaluationsRouter } from "./routers/evaluations";
import { tierPlansRouter } from "./routers/tier-plans";
import { userGroupsRouter } from "./routers/user-groups";
import { reviewsRouter } from "./routers/reviews";
import { overviewRouter } from "./routers/overview";
import { auditRouter } from "./routers/audit";
import { webhooksRouter } from "./routers/webhooks";
import { directoryRouter } from "./routers/directory";
import { ssoRouter } from "./routers/sso";
import { usageRouter } from "./routers/usage";
import { notificationsRouter } from "./routers/notifications";
import { findRouter } from "./routers/find";

export const appRouter = router({
  auth: authRouter,
  organization: organizationRouter,
  members: membersRouter,
  mfa: mfaRouter,
  security: securityRouter,
  invitations: invitationsRouter,
  apiKeys: apiKeysRouter,
  models: modelsRouter,
  modelProviders: modelProvidersRouter,
  modelPrices: modelPricesRouter,
  mcpConnections: mcpConnectionsRouter,
  endUsers: endUsersRouter,
  tierPlans: tierPlansRouter,
  userGroups: userGroupsRouter,
  directory: directoryRouter,
  sso: ssoRouter,
  portals: portalsRouter,
  mail: mailRouter,
  agents: agentsRouter,
  flows: flowsRouter,
  apps: appsRouter,
  builderTemplates: builderTemplatesRouter,
  runtime: runtimeRouter,
  evaluations: evaluationsRouter,
  conversations: conversationsRouter,
  knowledge: knowledgeRouter,
  reviews: reviewsRouter,
  overview: overviewRouter,
  audit: auditRouter,
  webhooks: webhooksRouter,
  usage: usageRouter,
  notifications: notificationsRouter,
  find: findRouter,
});

export type AppRouter = typeof appRouter;
