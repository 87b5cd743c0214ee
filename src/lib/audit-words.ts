// An audit event as a sentence a person reads ("bea@example.com changed Alice's plan from Free to
// Pro"), and its before/after values in words. Pure: the server resolves the names (actor, target
// and the ids inside `changes`, src/server/services/org/audit-log.ts) and the console shows the result.
import { fieldWords, listWords } from "./change-words";

export interface AuditNames {
  actor: { type: string; id: string | null; label: string; name: string; role: string | null };
  target: { type: string; id: string | null; label: string; name: string };
  action: string;
  outcome: string;
  changes: Record<string, unknown[]>;
  /** The names of the ids that `changes` holds (plans, groups, members, apps…). */
  names: Record<string, string>;
}

/** Targets that are people: named as they are ("Alice"), not quoted like an item ("plan “Pro”"). */
const PEOPLE = new Set(["end_user", "member", "invitation", "directory_user"]);

/** What each kind of target is called in a sentence. */
const THING_WORDS: Record<string, string> = {
  end_user: "end user",
  tier_plan: "plan",
  user_group: "group",
  api_key: "API key",
  webhook_endpoint: "webhook endpoint",
  webhook_delivery: "webhook delivery to",
  sso_connection: "single sign-on connection",
  mcp_connection: "MCP connection",
  model_provider: "model provider",
  model_price: "the price of model",
  knowledgebase: "knowledgebase",
  execution: "run",
  credit_request: "credit request",
  directory_user: "directory user",
  organization: "organization",
};

/** Fields as they read inside a sentence, where fieldWords() would not do. */
const FIELD_IN_SENTENCE: Record<string, string> = {
  tierPlanIds: "plan",
  tierPlanId: "plan",
  groupIds: "groups",
  grants: "app access",
  revokedAt: "revocation",
  archivedAt: "archiving",
  directoryDefaultPlanId: "default plan for directory users",
  productionVersionId: "live version",
  revisionId: "revision",
  parentPageId: "parent page",
  systemInstruction: "instructions",
  builtIns: "built-in tools",
  apiEnabled: "API access",
};

/** Verbs of actions, as a past tense, for the sentences no rule below writes. */
const VERBS: Record<string, string> = {
  create: "created",
  update: "changed",
  draft_update: "edited the draft of",
  delete: "deleted",
  remove: "removed",
  revoke: "revoked",
  archive: "archived",
  publish: "published",
  deploy: "made live",
  rename: "renamed",
  hide: "hid",
  approve: "approved",
  reject: "rejected",
  dismiss: "dismissed",
  resend: "resent",
  retry: "retried indexing",
  replay: "replayed the",
  suspend: "suspended",
  reactivate: "reactivated",
  erase: "erased the data of",
  link: "linked",
  cancel: "canceled",
  dataset_import: "imported a test dataset into",
  dataset_delete: "deleted the test dataset of",
  tests_update: "changed the tests of",
  feedback: "rated",
  test: "sent a test event to",
};

const ROLE_WORDS: Record<string, string> = { owner: "owner", admin: "admin", member: "member", viewer: "viewer" };

/** Who acted, as a person reads it: an email, a key's name, "the directory", "Atrium". */
export function actorWords(actor: AuditNames["actor"]): string {
  switch (actor.type) {
    case "org_key":
      return `the API key “${actor.name}”`;
    case "personal_key":
      return `the personal API key “${actor.name}”`;
    case "directory":
      return `directory sync (${actor.name})`;
    case "operator":
      return "the operator (admin CLI)";
    case "system":
      return "Atrium";
    default:
      return actor.name;
  }
}

/** "owner", "end user", "API key": the short tag shown beside the actor's name. */
export function actorKindWords(actor: Pick<AuditNames["actor"], "type" | "role">): string {
  if (actor.type === "member") return actor.role ? (ROLE_WORDS[actor.role] ?? actor.role) : "former member";
  const kinds: Record<string, string> = {
    org_key: "organization key",
    personal_key: "personal key",
    end_user: "end user",
    directory: "directory",
    operator: "operator",
    system: "system",
  };
  return kinds[actor.type] ?? actor.type;
}

function thingWords(type: string): string {
  return THING_WORDS[type] ?? fieldWords(type).toLowerCase();
}

/** The target as named in a sentence: "Alice", "plan “Pro”", "a portal" (when it has no name). */
export function targetWords(target: AuditNames["target"]): string {
  const name = target.name.trim();
  if (PEOPLE.has(target.type)) return name || `an ${thingWords(target.type)}`;
  // A subscription is named after the person it belongs to: "gave Alice 25 bonus credits".
  if (target.type === "subscription" && name) return name;
  if (target.type === "organization") return "the organization";
  return name ? `${thingWords(target.type)} “${name}”` : `a ${thingWords(target.type)}`;
}

/** "Alice’s plan", "their password", "the greeting of portal “Help”". */
function whose(event: AuditNames, what: string): string {
  if (event.actor.id !== null && event.actor.id === event.target.id) return `their ${what}`;
  if (event.target.type === "organization") return `the organization’s ${what}`;
  const target = targetWords(event.target);
  return PEOPLE.has(event.target.type) && event.target.name.trim() ? `${target}’s ${what}` : `the ${what} of ${target}`;
}

export function fieldInSentence(field: string, before?: unknown, after?: unknown): string {
  if (
    (field === "tierPlanIds" || field === "groupIds") &&
    [before, after].some((v) => Array.isArray(v) && v.length > 1)
  )
    return field === "tierPlanIds" ? "plans" : "groups";
  return FIELD_IN_SENTENCE[field] ?? fieldWords(field).toLowerCase();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One before or after value in words: names for ids, "none" for nothing, dates readable. */
export function valueWords(value: unknown, names: Record<string, string>): string {
  if (value === null || value === undefined) return "none";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") {
    if (UUID.test(value)) return names[value] ?? "a deleted item";
    if (value === "") return "empty";
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return new Date(value).toLocaleString();
    return value;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return "none";
    if (value.every((item) => typeof item === "string" || typeof item === "number"))
      return listWords(value.map((item) => valueWords(item, names)));
  }
  return JSON.stringify(value, (key, inner) =>
    typeof inner === "string" && UUID.test(inner) ? (names[inner] ?? inner) : inner,
  );
}

/** A value short and plain enough to stand in a sentence ("from Free to Pro"). */
function inline(value: unknown, names: Record<string, string>): string | null {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return null;
  const words = valueWords(value, names);
  if (words.length > 60) return null;
  return typeof value === "string" && !UUID.test(value) && value !== "" && !/^\d{4}-\d{2}-\d{2}T/.test(value)
    ? `“${words}”`
    : words;
}

/** Fields that hold a set of ids, told as what was added and removed: the thing each id is. */
const SET_FIELDS: Record<string, string> = { tierPlanIds: "plan", groupIds: "group" };

/** "moved Alice from the plan Free to Pro", "gave Alice the plan Pro", "removed Alice from the group Sales". */
function setChangeWords(event: AuditNames, thing: string, before: unknown, after: unknown): string | null {
  const was = Array.isArray(before) ? before.map(String) : before === null ? [] : null;
  const now = Array.isArray(after) ? after.map(String) : after === null ? [] : null;
  if (!was || !now) return null;
  const added = now.filter((id) => !was.includes(id));
  const removed = was.filter((id) => !now.includes(id));
  const target = targetWords(event.target);
  const named = (ids: string[]) => listWords(ids.map((id) => valueWords(id, event.names)));
  const things = (ids: string[]) => `${thing}${ids.length > 1 ? "s" : ""}`;
  if (added.length === 1 && removed.length === 1)
    return `moved ${target} from the ${thing} ${named(removed)} to ${named(added)}`;
  if (added.length && removed.length)
    return `gave ${target} the ${things(added)} ${named(added)} instead of ${named(removed)}`;
  if (added.length) return `gave ${target} the ${things(added)} ${named(added)}`;
  if (removed.length) return `removed ${target} from the ${things(removed)} ${named(removed)}`;
  return null;
}

/** "changed Alice’s plan from Free to Pro", "changed the name and greeting of portal “Help”". */
function changedWords(event: AuditNames): string {
  const fields = Object.entries(event.changes);
  if (fields.length === 0) return `changed ${targetWords(event.target)}`;
  if (fields.length === 1) {
    const [field, [before, after] = []] = fields[0]!;
    const moved = SET_FIELDS[field] && setChangeWords(event, SET_FIELDS[field], before, after);
    if (moved) return moved;
    const what = whose(event, fieldInSentence(field, before, after));
    if (before === "changed" || after === "changed") return `changed ${what}`;
    const from = inline(before, event.names);
    const to = inline(after, event.names);
    return from !== null && to !== null ? `changed ${what} from ${from} to ${to}` : `changed ${what}`;
  }
  const what = fields.map(([field, values]) => fieldInSentence(field, values[0], values[1]));
  return `changed ${whose(event, listWords(what))}`;
}

function after(event: AuditNames, field: string): unknown {
  return event.changes[field]?.[1];
}

function before(event: AuditNames, field: string): unknown {
  return event.changes[field]?.[0];
}

/** The predicate of the sentence: what the actor did. */
function didWords(event: AuditNames): string {
  const target = targetWords(event.target);
  const verb = event.action.split(".")[1] ?? "";
  const names = event.names;
  switch (event.action) {
    case "member.sign_in":
    case "end_user.sign_in": {
      const how = after(event, "method") === "sso" ? " with single sign-on" : "";
      return event.outcome === "failure" ? `failed to sign in${how}` : `signed in${how}`;
    }
    case "portal.embed_sign_in":
      return `signed in to ${target} through its embed`;
    case "member.add":
      return `added ${target} to the organization as ${valueWords(after(event, "role"), names)}`;
    case "member.remove":
      return `removed ${target} from the organization`;
    case "member.password_reset":
      return `reset the password of ${target}`;
    case "member.notification_email":
      return `changed the notification emails of ${event.actor.id === event.target.id ? "their own account" : target}`;
    case "invitation.create":
      return `invited ${target} as ${valueWords(after(event, "role"), names)}`;
    case "invitation.resend":
      return `resent the invitation to ${target}`;
    case "invitation.revoke":
      return `revoked the invitation of ${target}`;
    case "invitation.accept":
      return "accepted their invitation";
    case "end_user.create":
      return `added the end user ${target}`;
    case "end_user.delete":
      return `deleted the end user ${target}`;
    case "end_user.revoke":
      return `revoked the access of ${target}`;
    case "end_user.export":
      return "downloaded their own data";
    case "end_user.export_mail":
      return "asked for a link to their own data by email";
    case "user_group.member_add":
      return `added ${valueWords(after(event, "members"), names)} to ${target}`;
    case "user_group.member_remove":
      return `removed ${valueWords(before(event, "members"), names)} from ${target}`;
    case "portal.admission_add":
      return `admitted ${valueWords(after(event, "groups"), names)} to ${target}`;
    case "portal.admission_remove":
      return `removed ${valueWords(before(event, "groups"), names)} from ${target}`;
    case "portal.embed_secret_rotate":
      return `rotated the embed secret of ${target}`;
    case "webhook_endpoint.rotate_secret":
      return `rotated the signing secret of ${target}`;
    case "grant.create": {
      const grant = after(event, "grants") as { effect?: string; targetId?: string; targetKind?: string } | undefined;
      const app = grant?.targetId ? (names[grant.targetId] ?? "a deleted item") : "an item";
      const kind = grant?.targetKind ?? "app";
      return grant?.effect === "deny"
        ? `denied ${target} the ${kind} “${app}”`
        : `gave ${target} access to the ${kind} “${app}”`;
    }
    case "grant.delete":
      return `removed a grant of ${target}`;
    case "subscription.create": {
      const plan = after(event, "tierPlanId");
      return plan ? `subscribed ${target} to the plan “${valueWords(plan, names)}”` : `subscribed ${target} to a plan`;
    }
    case "subscription.cancel":
      return `canceled the subscription of ${target}`;
    case "subscription.link":
      return `linked a subscription of ${target}`;
    case "subscription.bonus_credits": {
      const credits = String(after(event, "bonusCredits") ?? "").replace(/^\+/, "");
      return `gave ${target} ${credits} bonus credit${credits === "1" ? "" : "s"}`;
    }
    case "credits.low":
      return `saw the credits of ${target} run low`;
    case "credits.exhausted":
      return `saw the credits of ${target} run out`;
    case "execution.failed":
      return `saw a run of ${event.target.name ? `“${event.target.name}”` : "an item"} fail`;
    case "execution.await_approval":
      return `paused a run at the approval “${event.target.name}”`;
    case "execution.complete":
      return `finished a run after its approval “${event.target.name}”`;
    case "execution.approve":
    case "execution.reject":
      return `${verb === "approve" ? "approved" : "rejected"} a run waiting at “${event.target.name}”`;
    case "execution.feedback":
      return `rated a run ${after(event, "rating") === "down" ? "👎 (not helpful)" : "👍 (helpful)"}`;
    case "source.ready":
      return `finished indexing the source “${event.target.name}”`;
    case "source.failed":
      return `could not index the source “${event.target.name}”`;
    case "review.create":
      return `proposed a change for review: “${event.target.name}”`;
    case "directory.sync_failed":
      return "refused a directory sync request";
    case "webhook_endpoint.test":
      return `sent a test event to ${target}`;
    case "sso_connection.metadata_refresh":
      return `took the identity provider's new metadata into ${target}`;
    case "sso_connection.test":
      return `tested ${target}`;
  }
  if (verb === "update" || verb === "role_change" || verb === "password_change" || verb === "draft_update")
    return changedWords(event);
  if (verb === "publish") {
    const version = after(event, "version");
    return `published ${target}${typeof version === "number" ? ` (version ${version})` : ""}`;
  }
  const said = VERBS[verb];
  if (said) return `${said} ${target}`;
  return `recorded ${event.action} on ${target}`;
}

/** The whole sentence, capitalised, for the list: "bea@example.com changed Alice’s plan from Free to Pro". */
export function auditSentence(event: AuditNames): string {
  const who = actorWords(event.actor);
  const sentence = `${who} ${didWords(event)}`;
  const told = event.outcome === "failure" && !event.action.endsWith(".sign_in") ? `${sentence} (refused)` : sentence;
  // A name or an address is written as it is ("ana@example.com"); "the API key …" starts a sentence.
  const asName = event.actor.type === "member" || event.actor.type === "end_user";
  return asName ? told : told.charAt(0).toUpperCase() + told.slice(1);
}

/** Every action the log records, by resource, for the filter's select. */
export const KNOWN_ACTIONS: Record<string, string[]> = {
  "Sign-ins": ["member.sign_in", "end_user.sign_in", "portal.embed_sign_in"],
  "End users": [
    "end_user.create",
    "end_user.update",
    "end_user.revoke",
    "end_user.suspend",
    "end_user.reactivate",
    "end_user.delete",
    "end_user.erase",
    "end_user.export",
    "end_user.export_mail",
  ],
  "Plans and credits": [
    "tier_plan.create",
    "tier_plan.update",
    "tier_plan.archive",
    "subscription.create",
    "subscription.cancel",
    "subscription.link",
    "subscription.bonus_credits",
    "credits.low",
    "credits.exhausted",
    "credit_request.dismiss",
  ],
  "Groups and access": [
    "user_group.create",
    "user_group.update",
    "user_group.delete",
    "user_group.member_add",
    "user_group.member_remove",
    "grant.create",
    "grant.delete",
  ],
  Members: [
    "member.add",
    "member.remove",
    "member.role_change",
    "member.password_change",
    "member.password_reset",
    "member.notification_email",
    "invitation.create",
    "invitation.resend",
    "invitation.revoke",
    "invitation.accept",
  ],
  "Apps, agents and flows": [
    "app.create",
    "app.draft_update",
    "app.publish",
    "app.deploy",
    "app.delete",
    "agent.create",
    "agent.draft_update",
    "agent.publish",
    "agent.deploy",
    "agent.delete",
    "flow.create",
    "flow.draft_update",
    "flow.publish",
    "flow.deploy",
    "flow.delete",
  ],
  Runs: ["execution.failed", "execution.await_approval", "execution.approve", "execution.reject", "execution.complete"],
  Knowledge: [
    "knowledgebase.create",
    "knowledgebase.update",
    "knowledgebase.delete",
    "page.create",
    "page.update",
    "page.move",
    "page.delete",
    "source.create",
    "source.ready",
    "source.failed",
    "source.retry",
    "source.update",
    "source.delete",
    "review.create",
    "review.approve",
    "review.reject",
  ],
  Portals: [
    "portal.create",
    "portal.update",
    "portal.delete",
    "portal.admission_add",
    "portal.admission_remove",
    "portal.embed_secret_rotate",
  ],
  "Settings and integrations": [
    "organization.update",
    "api_key.create",
    "api_key.revoke",
    "webhook_endpoint.create",
    "webhook_endpoint.update",
    "webhook_endpoint.delete",
    "webhook_endpoint.rotate_secret",
    "webhook_endpoint.test",
    "webhook_delivery.replay",
    "sso_connection.create",
    "sso_connection.update",
    "sso_connection.delete",
    "sso_connection.metadata_refresh",
    "model_provider.create",
    "model_provider.update",
    "model_provider.delete",
    "model_price.create",
    "model_price.update",
    "model_price.delete",
    "mcp_connection.create",
    "mcp_connection.update",
    "mcp_connection.delete",
  ],
  Directory: ["directory_user.create", "directory_user.update", "directory_user.delete", "directory.sync_failed"],
};

/** "end_user.update" → "End user changed", for the action select. */
export function actionLabel(action: string): string {
  const [type = "", verb = ""] = action.split(".");
  const special: Record<string, string> = {
    "member.sign_in": "Member signed in",
    "end_user.sign_in": "End user signed in",
    "end_user.export": "End user downloaded their data",
    "end_user.export_mail": "End user was mailed a link to their data",
    "portal.embed_sign_in": "Signed in through an embed",
    "credits.low": "Credits running low",
    "credits.exhausted": "Credits run out",
    "execution.failed": "Run failed",
    "execution.await_approval": "Run waiting for approval",
    "execution.complete": "Run finished after approval",
    "source.ready": "Source indexed",
    "source.failed": "Source could not be indexed",
    "directory.sync_failed": "Directory sync refused",
    "webhook_endpoint.test": "Webhook test event sent",
    "sso_connection.metadata_refresh": "SAML metadata changed at the identity provider",
  };
  if (special[action]) return special[action];
  const thing = thingWords(type);
  const did = verb === "update" ? "changed" : (VERBS[verb] ?? fieldWords(verb).toLowerCase());
  const text = `${thing.replace(/^the /, "")} ${did.replace(/ (the|of|into|to)$/, "")}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
