// Who is acting. Services take an actor and decide with it; they never see HTTP.
import type { Role, Scope } from "@/schemas/identity/auth";
import { clientAddress } from "./client-address";

/** The door a change came through, as the audit log names it. */
export type AuditDoor = "console" | "api" | "mcp" | "cli" | "portal" | "scim" | "system";

/** Where the request that acts came from: the audit log records it beside each change. */
export interface RequestOrigin {
  door: AuditDoor;
  /** The request's X-Request-Id. */
  requestId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
}

const MAX_USER_AGENT = 512;

/** The origin of an HTTP request, built once where the door builds its actor. */
export function requestOrigin(request: { headers: Headers }, requestId: string, door: AuditDoor): RequestOrigin {
  const address = clientAddress(request.headers);
  return {
    door,
    requestId,
    ipAddress: address === "unknown" ? null : address,
    userAgent: request.headers.get("user-agent")?.slice(0, MAX_USER_AGENT) ?? null,
  };
}

export interface ActingMember {
  id: string;
  role: Role;
  email: string;
}

/** A request made with an API key (REST or MCP): an "agent write" when it writes. */
export interface KeyActor {
  kind: "key";
  /** Where the request came from (absent for calls made in-process, e.g. tests). */
  origin?: RequestOrigin;
  organizationId: string;
  keyId: string;
  keyName: string;
  keyKind: "organization" | "personal";
  scopes: readonly Scope[];
  /** The key's owner for a personal key; null for an organization key. */
  member: ActingMember | null;
  /**
   * The organization's lookup epoch this request's key check read (the lookup_epochs table): what
   * the process keeps of the organization (its model list, the apps it runs as published) is used
   * only when kept at this epoch.
   */
  lookupEpoch?: string;
}

/** A person signed in to the console. */
export interface MemberActor {
  kind: "member";
  /** Where the request came from (absent for calls made in-process, e.g. tests). */
  origin?: RequestOrigin;
  organizationId: string;
  member: ActingMember;
  /** The organization's lookup epoch read with the session (what KeyActor's says). */
  lookupEpoch?: string;
}

/** The admin CLI: an operator of this installation, allowed everything in the organization. */
export interface OperatorActor {
  kind: "operator";
  /** Where the request came from (absent for calls made in-process, e.g. tests). */
  origin?: RequestOrigin;
  organizationId: string;
}

export type Actor = KeyActor | MemberActor | OperatorActor;

/**
 * An end user signed in to a portal. Deliberately not an Actor: console and API services
 * never accept one; only the portal's services and the runs they start do.
 */
export interface EndUserActor {
  kind: "end_user";
  /** Where the request came from (absent for calls made in-process, e.g. tests). */
  origin?: RequestOrigin;
  organizationId: string;
  endUser: { id: string; email: string; fullName: string };
  /** The portal the request came through. */
  portalId: string;
  /** The organization's lookup epoch read with the session (what KeyActor's says). */
  lookupEpoch?: string;
}

/** The door each kind of actor comes through when its call carries no request (made in-process: jobs, tests). */
const USUAL_DOOR = {
  key: "api",
  member: "console",
  operator: "cli",
  end_user: "portal",
  system: "system",
} as const satisfies Record<string, AuditDoor>;

/**
 * The door an actor acts through, in the audit log's words: its request's, else its kind's
 * usual one. Every label of where a change came from is this (or a mapping of it at the edge).
 */
export function channelOf(actor: { kind: keyof typeof USUAL_DOOR; origin?: RequestOrigin }): AuditDoor {
  return actor.origin?.door ?? USUAL_DOOR[actor.kind];
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
