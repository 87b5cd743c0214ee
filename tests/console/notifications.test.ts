// Notifications (src/server/services/org/notifications.ts): what waits for a member, by role, within
// their organization only; read marks per member; cleared when handled; and the emails a member
// opts into, sent by the worker once across any number of runs (src/server/jobs/notification-emails.ts).
import { describe, expect, it } from "vitest";
import type { MemberActor } from "@/server/auth/actor";
import { closeDb, createDb, getDb } from "@/server/db";
import { runNotificationEmailsOnce } from "@/server/jobs/notification-emails";
import { dismissCreditRequest, grantBonusCredits } from "@/server/services/provisioning/credit-requests";
import { provisionEndUser } from "@/server/services/provisioning/end-users";
import { recordEvent } from "@/server/services/org/events";
import { listNotifications, markNotificationsRead, setNotificationEmails } from "@/server/services/org/notifications";
import { updateOrganization } from "@/server/services/org/organizations";
import { approveReview } from "@/server/services/knowledge/reviews";
import { createTierPlan } from "@/server/services/provisioning/tier-plans";
import {
  addPerson,
  api,
  newOrganization,
  signInCookie,
  trpc,
  trpcErrorCode,
  uniqueSuffix,
  type Person,
  type Tenant,
} from "../helpers";

const db = () => getDb();

function actorOf(tenant: Tenant, person: Person): MemberActor {
  return {
    kind: "member",
    organizationId: tenant.organization.id,
    member: { id: person.member.id, role: person.member.role, email: person.email },
  };
}

/** A page proposed with the organization key while agent writes are reviewed: a pending review. */
async function pendingReview(tenant: Tenant, knowledgebaseId: string, title: string): Promise<string> {
  await updateOrganization(db(), tenant.operator, { reviewAgentWrites: true });
  const response = await api("POST", `/knowledgebases/${knowledgebaseId}/pages`, {
    key: tenant.orgKey.secret,
    body: { title, markdown: "Draft" },
  });
  expect(response.status).toBe(202);
  return String(response.body.reviewPath).split("/").pop()!;
}

interface World {
  tenant: Tenant;
  admin: Person;
  builder: Person;
  viewer: Person;
  knowledgebaseId: string;
  reviewId: string;
  endUserId: string;
  tierPlanId: string;
  creditRequestId: string;
  sourceId: string;
}

async function world(): Promise<World> {
  const tenant = await newOrganization();
  const [admin, builder, viewer] = [
    await addPerson(tenant.operator, "admin"),
    await addPerson(tenant.operator, "member"),
    await addPerson(tenant.operator, "viewer"),
  ];
  const organizationId = tenant.organization.id;
  const knowledgebase = await db().knowledgebase.create({ data: { organizationId, name: "Runbooks" } });
  const reviewId = await pendingReview(tenant, knowledgebase.id, `Onboarding ${uniqueSuffix()}`);
  const { tierPlan } = await createTierPlan(db(), tenant.operator, {
    name: "Student",
    creditAllowance: 10,
    withGroup: false,
  });
  const endUser = (
    await provisionEndUser(db(), tenant.operator, {
      email: `alice-${uniqueSuffix()}@example.test`,
      fullName: "Alice Liddell",
      tierPlanIds: [tierPlan.id],
    })
  ).endUser;
  const request = await db().creditRequest.create({
    data: { organizationId, endUserId: endUser.id, message: "Exam tomorrow" },
  });
  const source = await db().source.create({
    data: {
      organizationId,
      knowledgebaseId: knowledgebase.id,
      name: "handbook.pdf",
      type: "pdf",
      status: "failed",
      errorMessage: "No text found",
      createdVia: "api",
    },
  });
  return {
    tenant,
    admin,
    builder,
    viewer,
    knowledgebaseId: knowledgebase.id,
    reviewId,
    endUserId: endUser.id,
    tierPlanId: tierPlan.id,
    creditRequestId: request.id,
    sourceId: source.id,
  };
}

describe("notifications: who sees what", () => {
  it("admins see reviews, credit requests and failed sources, each with where it is handled; members see failed sources; viewers nothing", async () => {
    const w = await world();
    const forAdmin = await listNotifications(db(), actorOf(w.tenant, w.admin), {});
    expect(forAdmin).toMatchObject({ unread: 3, total: 3 });
    const byKind = Object.fromEntries(forAdmin.notifications.map((n) => [n.kind, n]));
    expect(byKind.review).toMatchObject({ itemId: w.reviewId, href: `/reviews/${w.reviewId}`, read: false });
    expect(byKind.credit_request).toMatchObject({
      itemId: w.creditRequestId,
      href: `/end-users/${w.endUserId}`,
      detail: "Exam tomorrow",
    });
    expect(byKind.credit_request!.title).toContain("Alice Liddell");
    expect(byKind.source_failed).toMatchObject({
      title: "handbook.pdf",
      detail: "No text found",
      href: `/knowledge/${w.knowledgebaseId}/sources/${w.sourceId}`,
    });

    const forBuilder = await listNotifications(db(), actorOf(w.tenant, w.builder), {});
    expect(forBuilder.notifications.map((n) => n.kind)).toEqual(["source_failed"]);
    expect(await listNotifications(db(), actorOf(w.tenant, w.viewer), {})).toEqual({
      notifications: [],
      unread: 0,
      total: 0,
    });
  });

  it("disabled webhook endpoints and recorded directory sync failures reach admins", async () => {
    const w = await world();
    const organizationId = w.tenant.organization.id;
    const endpoint = await db().webhookEndpoint.create({
      data: {
        organizationId,
        url: "https://hooks.example.test/in",
        eventTypes: ["*"],
        secret: "whsec_x",
        enabled: false,
        disabledReason: "Every delivery failed for 5 days.",
      },
    });
    // An endpoint an admin turned off themselves is not news.
    await db().webhookEndpoint.create({
      data: {
        organizationId,
        url: "https://hooks.example.test/off",
        eventTypes: ["*"],
        secret: "whsec_y",
        enabled: false,
      },
    });
    await recordEvent(
      db(),
      { kind: "system", organizationId },
      {
        action: "directory.sync_failed",
        target: { type: "directory", label: "Entra ID" },
        changes: { error: [null, "401 from the provider"] },
      },
    );
    const kinds = (await listNotifications(db(), actorOf(w.tenant, w.admin), {})).notifications;
    expect(kinds.find((n) => n.kind === "webhook_disabled")).toMatchObject({
      itemId: endpoint.id,
      href: "/webhooks",
      detail: "Every delivery failed for 5 days.",
    });
    expect(kinds.find((n) => n.kind === "directory_sync_failed")).toMatchObject({
      title: "Entra ID",
      detail: "401 from the provider",
      href: "/directory",
    });
    expect(kinds.filter((n) => n.kind === "webhook_disabled")).toHaveLength(1);
  });

  it("another organization's items never show, and cannot be marked read", async () => {
    const mine = await world();
    const theirs = await world();
    const listed = await listNotifications(db(), actorOf(mine.tenant, mine.admin), {});
    const ids = listed.notifications.map((n) => n.itemId);
    expect(ids).not.toContain(theirs.reviewId);
    expect(ids).not.toContain(theirs.creditRequestId);
    expect(ids).not.toContain(theirs.sourceId);

    const { marked } = await markNotificationsRead(db(), actorOf(mine.tenant, mine.admin), {
      items: [{ kind: "review", itemId: theirs.reviewId }],
    });
    expect(marked).toBe(0);
    expect(await db().notificationRead.count({ where: { memberId: mine.admin.member.id } })).toBe(0);
  });

  it("keys and the operator have no notifications; over the console door a session is needed", async () => {
    const w = await world();
    await expect(listNotifications(db(), w.tenant.operator, {})).rejects.toMatchObject({ code: "forbidden_role" });
    const response = await trpc("query", "notifications.list", {});
    expect(response.status).toBe(401);
  });
});

describe("notifications: read marks", () => {
  it("are per member: one admin's read leaves another's unread; all read clears the count", async () => {
    const w = await world();
    const other = await addPerson(w.tenant.operator, "admin");
    const cookie = await signInCookie(w.admin.email, w.admin.password);
    const marked = await trpc(
      "mutation",
      "notifications.markRead",
      { items: [{ kind: "review", itemId: w.reviewId }] },
      { cookie },
    );
    expect(marked.status).toBe(200);
    expect(marked.body.result.data).toEqual({ marked: 1 });

    const mine = (await trpc("query", "notifications.list", {}, { cookie })).body.result.data;
    expect(mine).toMatchObject({ unread: 2, total: 3 });
    expect(mine.notifications.find((n: { kind: string }) => n.kind === "review").read).toBe(true);
    expect(await listNotifications(db(), actorOf(w.tenant, other), {})).toMatchObject({ unread: 3 });

    await markNotificationsRead(db(), actorOf(w.tenant, w.admin), { all: true });
    expect(await listNotifications(db(), actorOf(w.tenant, w.admin), { unreadOnly: true })).toEqual({
      notifications: [],
      unread: 0,
      total: 3,
    });
  });

  it("an item that waits again after being read (a source failing again) is unread again", async () => {
    const w = await world();
    const actor = actorOf(w.tenant, w.builder);
    await markNotificationsRead(db(), actor, { all: true });
    expect(await listNotifications(db(), actor, {})).toMatchObject({ unread: 0, total: 1 });
    await db().source.update({ where: { id: w.sourceId }, data: { status: "processing" } });
    await db().source.update({ where: { id: w.sourceId }, data: { status: "failed", errorMessage: "Still no text" } });
    expect(await listNotifications(db(), actor, {})).toMatchObject({ unread: 1, total: 1 });
  });

  it("refuses more than 100 items, or none, with invalid_request and writes nothing", async () => {
    const w = await world();
    const cookie = await signInCookie(w.admin.email, w.admin.password);
    const items = Array.from({ length: 101 }, () => ({ kind: "review", itemId: w.reviewId }));
    const tooMany = await trpc("mutation", "notifications.markRead", { items }, { cookie });
    expect(tooMany.status).toBe(400);
    expect(trpcErrorCode(tooMany)).toBe("invalid_request");
    const none = await trpc("mutation", "notifications.markRead", {}, { cookie });
    expect(trpcErrorCode(none)).toBe("invalid_request");
    expect(await db().notificationRead.count({ where: { memberId: w.admin.member.id } })).toBe(0);
  });
});

describe("notifications: cleared when handled", () => {
  it("an approved review and a granted or dismissed credit request no longer wait", async () => {
    const w = await world();
    const admin = actorOf(w.tenant, w.admin);
    await markNotificationsRead(db(), admin, { items: [{ kind: "review", itemId: w.reviewId }] });
    await approveReview(db(), admin, { reviewId: w.reviewId });
    await grantBonusCredits(db(), admin, { endUserId: w.endUserId, tierPlanId: w.tierPlanId, credits: 5 });
    expect((await listNotifications(db(), admin, {})).notifications.map((n) => n.kind)).toEqual(["source_failed"]);

    const again = await db().creditRequest.create({
      data: { organizationId: w.tenant.organization.id, endUserId: w.endUserId },
    });
    expect((await listNotifications(db(), admin, {})).unread).toBe(2);
    await dismissCreditRequest(db(), admin, { endUserId: w.endUserId, creditRequestId: again.id });
    expect((await listNotifications(db(), admin, {})).total).toBe(1);
    // Marking all read drops the marks of what no longer waits.
    await markNotificationsRead(db(), admin, { all: true });
    expect(
      await db().notificationRead.findMany({ where: { memberId: w.admin.member.id }, select: { kind: true } }),
    ).toEqual([{ kind: "source_failed" }]);
  });
});

describe("notification emails", () => {
  it("mail each opted-in member once, however many workers run at once, and never the backlog from before opting in", async () => {
    const w = await world();
    const organizationId = w.tenant.organization.id;
    // The credit request of world() is mailed to admins by default; the review (off by default) is not.
    await Promise.all([
      runNotificationEmailsOnce(db()),
      runNotificationEmailsOnce(db()),
      runNotificationEmailsOnce(db()),
    ]);
    const toAdmin = await db().outboxMessage.findMany({ where: { organizationId, to: w.admin.email } });
    expect(toAdmin.map((m) => m.subject)).toEqual([expect.stringContaining("asks for more credits")]);
    expect(toAdmin[0]!.text).toContain(`/end-users/${w.endUserId}`);
    expect(await db().outboxMessage.count({ where: { organizationId, to: w.builder.email } })).toBe(0);

    await setNotificationEmails(db(), actorOf(w.tenant, w.admin), { kinds: [{ kind: "review", email: true }] });
    await runNotificationEmailsOnce(db());
    expect(await db().outboxMessage.count({ where: { organizationId, to: w.admin.email } })).toBe(1);

    const reviewId = await pendingReview(w.tenant, w.knowledgebaseId, "Refund policy");
    await Promise.all([runNotificationEmailsOnce(db()), runNotificationEmailsOnce(db())]);
    await runNotificationEmailsOnce(db());
    const reviewMail = await db().outboxMessage.findMany({
      where: { organizationId, to: w.admin.email, subject: { contains: "review" } },
    });
    expect(reviewMail).toHaveLength(1);
    expect(reviewMail[0]!.text).toContain(`/reviews/${reviewId}`);
    expect(reviewMail[0]!.subject).toContain("Refund policy");
  });

  it("are chosen per kind on the member's account; a kind the role is not told of is refused, and the choice is recorded", async () => {
    const w = await world();
    const cookie = await signInCookie(w.builder.email, w.builder.password);
    const listed = await trpc("query", "notifications.emails", undefined, { cookie });
    // A member is told of what members handle: failed sources and runs waiting for approval.
    expect(listed.body.result.data.kinds).toEqual([
      { kind: "source_failed", label: "Failed sources", email: false },
      { kind: "approval", label: "Runs waiting for approval", email: false },
    ]);
    const refused = await trpc(
      "mutation",
      "notifications.setEmails",
      { kinds: [{ kind: "credit_request", email: true }] },
      { cookie },
    );
    expect(refused.status).toBe(403);
    expect(trpcErrorCode(refused)).toBe("forbidden_role");
    expect(await db().notificationEmailSetting.count({ where: { memberId: w.builder.member.id } })).toBe(0);

    const set = await trpc(
      "mutation",
      "notifications.setEmails",
      { kinds: [{ kind: "source_failed", email: true }] },
      { cookie },
    );
    expect(set.body.result.data.kinds).toEqual([
      { kind: "source_failed", label: "Failed sources", email: true },
      { kind: "approval", label: "Runs waiting for approval", email: false },
    ]);
    const event = await db().auditEvent.findFirst({
      where: { organizationId: w.tenant.organization.id, action: "member.notification_email" },
    });
    expect(event).toMatchObject({ actorId: w.builder.member.id, targetId: w.builder.member.id });
    // The source failed before the choice: not mailed. Failing again afterwards is.
    await runNotificationEmailsOnce(db());
    expect(await db().outboxMessage.count({ where: { to: w.builder.email } })).toBe(0);
    await db().source.update({ where: { id: w.sourceId }, data: { status: "failed", errorMessage: "Again" } });
    await runNotificationEmailsOnce(db());
    expect((await db().outboxMessage.findMany({ where: { to: w.builder.email } })).map((m) => m.subject)).toEqual([
      "A source failed: handbook.pdf",
    ]);
  });

  it("find recent directory failures and failed sources without reading every audit event or source", async () => {
    // Every process's worker looks for them every few seconds, in every organization: a read of
    // the whole audit log and of every source each time, which grow with every organization.
    const w = await world();
    const organizationId = w.tenant.organization.id;
    await db().pool.query(
      `insert into audit_events (id, organization_id, actor_type, actor_label, door, action, target_type, target_id, occurred_at)
       select gen_random_uuid(), $1, 'system', 'Atrium', 'system', 'end_user.update', 'end_user', n::text, now()
       from generate_series(1, 3000) n`,
      [organizationId],
    );
    await db().pool.query(
      `insert into sources (id, organization_id, knowledgebase_id, name, type, status, created_via, updated_at)
       select gen_random_uuid(), $1, $2, 'guide ' || n || '.md', 'markdown', 'ready', 'api', now()
       from generate_series(1, 3000) n`,
      [organizationId, w.knowledgebaseId],
    );
    await recordEvent(
      db(),
      { kind: "system", organizationId },
      { action: "directory.sync_failed", target: { type: "directory", label: "Okta" }, changes: {} },
    );
    // One connection, in one transaction, so that its statistics count only these reads.
    const single = createDb(process.env.DATABASE_URL!, 1);
    try {
      await single.pool.query("begin");
      // Rows read from each table, by a scan of the table or fetched through an index.
      const rowsRead = async () =>
        Object.fromEntries(
          (
            await single.pool.query<{ relname: string; read: string }>(
              `select relname, seq_tup_read + coalesce(idx_tup_fetch, 0) as read
               from pg_stat_xact_user_tables where relname in ('audit_events', 'sources')`,
            )
          ).rows.map((row) => [row.relname, Number(row.read)]),
        );
      const before = await rowsRead();
      await runNotificationEmailsOnce(single);
      const listed = (await listNotifications(single, actorOf(w.tenant, w.admin), {})).notifications;
      const after = await rowsRead();
      await single.pool.query("rollback");
      expect(listed.find((n) => n.kind === "directory_sync_failed")).toMatchObject({ title: "Okta" });
      expect(listed.find((n) => n.kind === "source_failed")).toMatchObject({ title: "handbook.pdf" });
      // The failures (this file's other organizations have some too), not the 3,000 rows beside them.
      expect(after.audit_events! - before.audit_events!).toBeLessThan(300);
      expect(after.sources! - before.sources!).toBeLessThan(300);
    } finally {
      await closeDb(single);
    }
  });
});
