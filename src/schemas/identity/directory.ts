// The console's view of the organization's directory (SCIM): what the Directory page shows and sets.
import { z } from "zod";
import { Timestamp, Uuid } from "../common";

export const DirectoryToken = z.object({
  id: Uuid,
  name: z.string(),
  prefix: z.string(),
  createdAt: Timestamp,
  lastUsedAt: Timestamp.nullable(),
});

export const DirectoryUserRow = z.object({
  id: Uuid,
  userName: z.string(),
  displayName: z.string(),
  active: z.boolean(),
  endUser: z.object({ id: Uuid, email: z.string(), suspendedAt: Timestamp.nullable() }).nullable(),
  updatedAt: Timestamp,
});

export const DirectoryGroupRow = z.object({
  id: Uuid,
  name: z.string(),
  memberCount: z.number().int(),
  updatedAt: Timestamp,
});

export const DirectoryEventRow = z.object({
  id: Uuid,
  action: z.string(),
  status: z.number().int(),
  detail: z.string(),
  createdAt: Timestamp,
});

export const DirectoryOverview = z.object({
  scimUrl: z.string(),
  /** The redirect URI to register at the OpenID provider for single sign-on. */
  oidcRedirectUri: z.string(),
  /** What to enter at a SAML identity provider: our entity id (also our metadata's URL) and ACS URL. */
  samlServiceProvider: z.object({ entityId: z.string(), acsUrl: z.string(), metadataUrl: z.string() }),
  tokens: z.array(DirectoryToken),
  defaultPlanId: Uuid.nullable(),
  users: z.array(DirectoryUserRow),
  userCount: z.number().int(),
  groups: z.array(DirectoryGroupRow),
  events: z.array(DirectoryEventRow),
});
export type DirectoryOverview = z.infer<typeof DirectoryOverview>;

export const DirectoryTokenCreated = DirectoryToken.extend({ secret: z.string() });

export const SetDirectoryDefaultPlanInput = z.strictObject({ tierPlanId: Uuid.nullable() });
export type SetDirectoryDefaultPlanInput = z.infer<typeof SetDirectoryDefaultPlanInput>;
export const DirectoryDefaultPlanOutput = z.object({ defaultPlanId: z.uuid().nullable() });
