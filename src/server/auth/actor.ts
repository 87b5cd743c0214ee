// Who is acting. Services take an actor and decide with it; they never see HTTP.
import type { Role, Scope } from "@/schemas/auth";

export interface ActingMember {
  id: string;
  role: Role;
  email: string;
}

/** A request made with an API key (REST or MCP): an "agent write" when it writes. */
export interface KeyActor {
  kind: "key";
  organizationId: string;
  keyId: string;
  keyName: string;
  keyKind: "organization" | "personal";
  scopes: readonly Scope[];
  /** The key's owner for a personal key; null for an organization key. */
  member: ActingMember | null;
}

/** A person signed in to the console. */
export interface MemberActor {
  kind: "member";
  organizationId: string;
  member: ActingMember;
}

/** The admin CLI: an operator of this installation, allowed everything in the organization. */
export interface OperatorActor {
  kind: "operator";
  organizationId: string;
}

export type Actor = KeyActor | MemberActor | OperatorActor;

/**
 * An end user signed in to a portal. Deliberately not an Actor: console and API services
 * never accept one; only the portal's services and the runs they start do.
 */
export interface EndUserActor {
  kind: "end_user";
  organizationId: string;
  endUser: { id: string; email: string; fullName: string };
  /** The portal the request came through. */
  portalId: string;
}

export function actorLabel(actor: Actor | EndUserActor): string {
  switch (actor.kind) {
    case "end_user":
      return actor.endUser.email;
    case "key":
      return actor.member?.email ?? actor.keyName;
    case "member":
      return actor.member.email;
    case "operator":
      return "operator";
  }
}
