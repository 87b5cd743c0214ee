// Work on many end users at once, through the services that serve one: a CSV import runs
// provisioning's own statement for each row (services/provisioning/end-users.ts provisionOn), inside one
// transaction it rolls back for a dry run, so what a dry run answers is what applying writes;
// a bulk action calls the grant, group and revocation services for each end user chosen.
import {
  type BulkEndUsersInput,
  type BulkEndUsersOutput,
  type ImportEndUsersInput,
  type ImportEndUsersOutput,
  type ImportRow,
} from "@/schemas/provisioning/end-user-batches";
import { MAX_IMPORT_ROWS } from "@/schemas/limits";
import { ProvisionEndUserInput } from "@/schemas/provisioning/provisioning";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, isAppError } from "@/server/errors";
import { provisionOn } from "./end-users";
import { revokeEndUser } from "./end-user-changes";
import { normalizeEmail } from "../identity/members";
import { addGroupMember } from "./user-groups";
import { groupedDigits } from "@/lib/digits";

type Column = "email" | "name" | "plan" | "groups";
const COLUMN_NAMES: Record<string, Column> = {
  email: "email",
  name: "name",
  "full name": "name",
  fullname: "name",
  plan: "plan",
  plans: "plan",
  groups: "groups",
  group: "groups",
};

function badFile(message: string): AppError {
  return new AppError("invalid_request", `Invalid request: ${message}`, {
    problems: [{ path: "csv", message }],
  });
}

interface CsvRow {
  line: number;
  values: Partial<Record<Column, string>>;
}

async function readCsv(csv: string): Promise<CsvRow[]> {
  const { default: Papa } = await import("papaparse");
  const parsed = Papa.parse<string[]>(csv.replace(/^\uFEFF/, ""), { delimiter: ",", skipEmptyLines: false });
  const lines = parsed.data.map((fields, index) => ({ line: index + 1, fields }));
  const filled = lines.filter((row) => row.fields.some((field) => field.trim() !== ""));
  const header = filled.shift();
  if (!header) throw badFile("the file is empty; its first line names the columns (email, name, plan, groups).");
  const columns = header.fields.map((name) => {
    const column = COLUMN_NAMES[name.trim().toLowerCase()];
    if (!column) throw badFile(`unknown column "${name.trim()}" on line 1 (use email, name, plan, groups).`);
    return column;
  });
  if (!columns.includes("email")) throw badFile("no `email` column on line 1.");
  if (new Set(columns).size !== columns.length) throw badFile("a column is named twice on line 1.");
  if (filled.length > MAX_IMPORT_ROWS)
    throw badFile(`${filled.length} rows; an import takes at most ${groupedDigits(MAX_IMPORT_ROWS)}.`);
  return filled.map((row) => ({
    line: row.line,
    values: Object.fromEntries(columns.map((column, i) => [column, (row.fields[i] ?? "").trim()])),
  }));
}

function namesIn(cell: string | undefined): string[] {
  return [
    ...new Set(
      (cell ?? "")
        .split(";")
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
}

/** Names → ids within the organization, case-insensitively; a name two things share is ambiguous. */
function byName(rows: { id: string; name: string }[]): Map<string, string | null> {
  const map = new Map<string, string | null>();
  for (const row of rows) {
    const key = row.name.trim().toLowerCase();
    map.set(key, map.has(key) ? null : row.id);
  }
  return map;
}

function resolve(
  names: string[],
  ids: Map<string, string | null>,
  code: "tier_not_found" | "group_not_found",
  kind: string,
): string[] {
  return names.map((name) => {
    const id = ids.get(name.toLowerCase());
    if (id === undefined) throw new AppError(code, `No ${kind} named “${name}” in this organization.`);
    if (id === null) throw new AppError(code, `More than one ${kind} is named “${name}”; rename one first.`);
    return id;
  });
}

/** A row as POST /end-users takes it, its plans and groups found by name; refused as that call would refuse it. */
function provisionInputOf(
  values: CsvRow["values"],
  planIds: Map<string, string | null>,
  groupIds: Map<string, string | null>,
): ProvisionEndUserInput {
  const parsed = ProvisionEndUserInput.safeParse({
    email: values.email ?? "",
    fullName: values.name || undefined,
    tierPlanIds: resolve(namesIn(values.plan), planIds, "tier_not_found", "plan"),
    groupIds: resolve(namesIn(values.groups), groupIds, "group_not_found", "group"),
  });
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new AppError("invalid_request", `${problem?.path.join(".") || "row"}: ${problem?.message ?? "invalid"}.`);
  }
  return parsed.data;
}

/**
 * Creates or updates end users from CSV (email, name, plan, groups), each row as POST /end-users
 * would with the plans and groups named. With `dryRun` (the default) every row is provisioned in
 * a transaction that is rolled back: the answer says what would be created, updated (and which
 * fields), left unchanged or refused (with the code and why), and nothing is written. Without it,
 * the same is committed; refused rows write nothing. A file that cannot be read is refused whole.
 */
export const importEndUsers = guarded(
  { scope: "end_users:write" },
  async function importEndUsers(db: Db, actor: Actor, input: ImportEndUsersInput): Promise<ImportEndUsersOutput> {
    const dryRun = input.dryRun ?? true;
    const csvRows = await readCsv(input.csv);
    const [plans, groups] = await Promise.all([
      db.tierPlan.findMany({
        where: { organizationId: actor.organizationId, archivedAt: null },
        select: { id: true, name: true },
      }),
      db.userGroup.findMany({ where: { organizationId: actor.organizationId }, select: { id: true, name: true } }),
    ]);
    const planIds = byName(plans);
    const groupIds = byName(groups);

    const rows: ImportRow[] = [];
    const seen = new Map<string, number>();
    const client = await db.pool.connect();
    try {
      await client.query("begin");
      for (const { line, values } of csvRows) {
        const email = values.email ?? "";
        const refuse = (error: unknown) => {
          if (!isAppError(error)) throw error;
          rows.push({
            line,
            email,
            outcome: "refused",
            changes: [],
            endUserId: null,
            error: { code: error.code, message: error.message },
          });
        };
        try {
          const provision = provisionInputOf(values, planIds, groupIds);
          const address = normalizeEmail(provision.email);
          const earlier = seen.get(address);
          if (earlier !== undefined) throw new AppError("invalid_request", `${address} is already on line ${earlier}.`);
          seen.set(address, line);
          const { result, changes } = await provisionOn(client, actor, provision);
          const changed = Object.keys(changes);
          rows.push({
            line,
            email: address,
            outcome: result.created ? "created" : changed.length ? "updated" : "unchanged",
            changes: result.created ? [] : changed,
            endUserId: dryRun && result.created ? null : result.endUser.id,
            error: null,
          });
        } catch (error) {
          refuse(error);
        }
      }
      await client.query(dryRun ? "rollback" : "commit");
    } catch (error) {
      await client.query("rollback").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    const count = (outcome: ImportRow["outcome"]) => rows.filter((row) => row.outcome === outcome).length;
    return {
      dryRun,
      summary: {
        created: count("created"),
        updated: count("updated"),
        unchanged: count("unchanged"),
        refused: count("refused"),
      },
      rows,
    };
  },
);

/**
 * One action over chosen end users of the organization, each through the service that does it
 * for one (the same rules and audit events): `grant` provisions an app grant as POST /end-users
 * does, `add_to_group` adds a group member, `revoke` revokes. Each end user's outcome is answered;
 * one refused does not stop the others. A revoked end user is not granted access (provisioning
 * would restore them): restore them first.
 */
export const bulkEndUserAction = guarded(
  { scope: "end_users:write" },
  async function bulkEndUserAction(db: Db, actor: Actor, input: BulkEndUsersInput): Promise<BulkEndUsersOutput> {
    if (input.action === "grant" && !input.appId)
      throw new AppError("invalid_request", "Invalid request: `grant` needs `appId`.", {
        problems: [{ path: "appId", message: "Required for grant" }],
      });
    if (input.action === "add_to_group" && !input.groupId)
      throw new AppError("invalid_request", "Invalid request: `add_to_group` needs `groupId`.", {
        problems: [{ path: "groupId", message: "Required for add_to_group" }],
      });
    const ids = [...new Set(input.endUserIds)];
    const found = await db.endUser.findMany({
      where: { id: { in: ids }, organizationId: actor.organizationId, deletedAt: null },
      select: { id: true, email: true, revokedAt: true },
    });
    const users = new Map(found.map((user) => [user.id, user]));
    const results: BulkEndUsersOutput["results"] = [];
    for (const endUserId of ids) {
      const user = users.get(endUserId);
      try {
        if (!user) throw new AppError("not_found", "No end user with that id.");
        let changed: boolean;
        if (input.action === "revoke") {
          changed = !user.revokedAt;
          await revokeEndUser(db, actor, { endUserId });
        } else if (input.action === "add_to_group") {
          changed = (await addGroupMember(db, actor, { groupId: input.groupId!, endUserId })).created;
        } else {
          if (user.revokedAt)
            throw new AppError("conflict", `${user.email} is revoked; restore them before granting access.`);
          const grant = {
            targetKind: "app" as const,
            targetId: input.appId!,
            effect: "allow" as const,
            deploymentId: input.portalId,
          };
          changed =
            (await provisionOn(db.pool, actor, { email: user.email, grants: [grant] })).result.grantsCreated > 0;
        }
        results.push({ endUserId, outcome: changed ? "changed" : "unchanged", error: null });
      } catch (error) {
        if (!isAppError(error)) throw error;
        results.push({ endUserId, outcome: "refused", error: { code: error.code, message: error.message } });
      }
    }
    return { results };
  },
);
