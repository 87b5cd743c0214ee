// The root router. Static REST paths are matched in registration order (first match wins),
// so keep routers with static segments ahead of parameterized siblings.
import { router } from "./init";
import { apiKeysRouter } from "./routers/identity/api-keys";
import { knowledgeRouter } from "./routers/knowledge/knowledge";
import { authRouter } from "./routers/identity/auth";
import { conversationsRouter } from "./routers/runs/conversations";
import { agentsRouter, appsRouter, flowsRouter } from "./routers/builder/builder";
import { builderTemplatesRouter } from "./routers/builder/builder-templates";
import { membersRouter } from "./routers/identity/members";
import { mfaRouter } from "./routers/identity/mfa";
import { securityRouter } from "./routers/identity/security";
import { invitationsRouter } from "./routers/identity/invitations";
import { endUsersRouter } from "./routers/provisioning/end-users";
import { modelsRouter } from "./routers/org/models";
import { modelProvidersRouter } from "./routers/org/model-providers";
import { modelPricesRouter } from "./routers/org/model-prices";
import { mcpConnectionsRouter } from "./routers/org/mcp-connections";
import { organizationRouter } from "./routers/org/organization";
import { mailRouter } from "./routers/org/mail";
import { portalsRouter } from "./routers/portal/portals";
import { runtimeRouter } from "./routers/runs/runtime";
import { evaluationsRouter } from "./routers/builder/evaluations";
import { tierPlansRouter } from "./routers/provisioning/tier-plans";
import { userGroupsRouter } from "./routers/provisioning/user-groups";
import { reviewsRouter } from "./routers/knowledge/reviews";
import { overviewRouter } from "./routers/org/overview";
import { auditRouter } from "./routers/org/audit";
import { webhooksRouter } from "./routers/org/webhooks";
import { directoryRouter } from "./routers/identity/directory";
import { ssoRouter } from "./routers/identity/sso";
import { usageRouter } from "./routers/runs/usage";
import { notificationsRouter } from "./routers/org/notifications";
import { findRouter } from "./routers/org/find";

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
