// The one permission table: what each role may do, in order, and the minimum role of every
// capability. Services declare the capability they need in guarded() (`{ may: "delete" }`, read
// by src/server/auth/authorize.ts), and the console asks the same table before it offers a control.
import { roleAtLeast, type Role } from "./identity/auth";

export const CAPABILITIES = {
  read: { role: "viewer", summary: "See everything in the organization and try its apps" },
  keys: { role: "viewer", summary: "Create and revoke their own API keys" },
  write: { role: "member", summary: "Create and edit knowledge, agents, flows, apps and end users" },
  delete: { role: "admin", summary: "Delete pages, sources, agents, flows, apps, end users, groups and grants" },
  grant: { role: "admin", summary: "Run plans and portals, grant credits" },
  review: { role: "admin", summary: "Approve and reject reviews" },
  members: { role: "admin", summary: "Invite members, change their roles, remove them and revoke their keys" },
  settings: {
    role: "admin",
    summary:
      "Change settings, providers, integrations, sign-in, directory, webhooks and organization keys; read the audit log and outbox",
  },
  owners: { role: "owner", summary: "Make and change owners" },
} as const satisfies Record<string, { role: Role; summary: string }>;

export type Capability = keyof typeof CAPABILITIES;

/** Each role as the console names it in a list or a picker (sentences keep the lowercase word: "Make … admin?"). */
export const ROLE_NAMES: Record<Role, string> = {
  viewer: "Viewer",
  member: "Member",
  admin: "Admin",
  owner: "Owner",
};

/** What each role may do beyond the role below it, in one line: the role picker shows it. */
export const ROLE_SUMMARIES: Record<Role, string> = {
  viewer: "Sees everything and tries apps; changes nothing.",
  member: "Also creates and edits knowledge, agents, flows, apps and end users.",
  admin: "Also deletes, decides reviews, runs plans, portals and credits, members and settings.",
  owner: "Also makes and changes owners.",
};

export function minimumRole(capability: Capability): Role {
  return CAPABILITIES[capability].role;
}

export function may(role: Role, capability: Capability): boolean {
  return roleAtLeast(role, minimumRole(capability));
}
