// Scope and role checks, scope first, then role: a key without the scope is refused for the
// scope even when its member's role would also fall short.
import { roleAtLeast, type Role, type Scope } from "@/schemas/identity/auth";
import { minimumRole, type Capability } from "@/schemas/permissions";
import { AppError } from "@/server/errors";
import type { Actor, EndUserActor } from "./actor";

export interface Requirement {
  /** The API scope a key needs. Console members are judged by role alone. */
  scope?: Scope;
  /** What the caller does, whose minimum role the permission table holds (src/schemas/permissions.ts); when omitted, writes (`*:write`) are `write` and the rest `read`. */
  may?: Capability;
  /** Also open to a portal's end users, whose access the function itself decides (their grants, services/portal/portal-access.ts). */
  endUsers?: true;
}

export function requiredCapability(requirement: Requirement): Capability {
  return requirement.may ?? (requirement.scope?.endsWith(":write") ? "write" : "read");
}

export function requiredRole(requirement: Requirement): Role {
  return minimumRole(requiredCapability(requirement));
}

export function authorize(actor: Actor | EndUserActor, requirement: Requirement): void {
  if (actor.kind === "operator") return;
  if (actor.kind === "end_user") {
    if (requirement.endUsers) return;
    throw new AppError("forbidden_role", "A portal's end users cannot do this.");
  }
  if (actor.kind === "key") {
    // A capability with no scope marks the console's own work (members, providers, reviews): no scope
    // grants it, so no key reaches it, whichever door a future change puts in front of it.
    if (!requirement.scope && requirement.may)
      throw new AppError("insufficient_scope", "No API key scope grants this; it is done in the console.");
    if (requirement.scope && !actor.scopes.includes(requirement.scope))
      throw new AppError("insufficient_scope", `This key lacks the scope ${requirement.scope}.`);
  }
  const member = actor.member;
  if (!member) return; // organization keys are bound by their scopes only
  const role = requiredRole(requirement);
  if (!roleAtLeast(member.role, role)) {
    throw new AppError("forbidden_role", `This needs the ${role} role or above; ${member.email} is ${member.role}.`);
  }
}
