-- CreateTable
CREATE TABLE "lookup_epochs" (
    "organization_id" UUID NOT NULL,
    "epoch" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "lookup_epochs_pkey" PRIMARY KEY ("organization_id")
);

-- Moves an organization's epoch on. The triggers below are deferred constraint triggers: they run
-- at commit, after every other row lock of the transaction is held, so the epoch's row lock is the
-- last one a writer takes and two writers can never wait for each other through it.
CREATE FUNCTION "move_lookup_epoch"("organization" UUID) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "lookup_epochs" ("organization_id", "epoch") VALUES ("organization", 1)
  ON CONFLICT ("organization_id") DO UPDATE SET "epoch" = "lookup_epochs"."epoch" + 1;
$$;

-- A row of an organization's own (api_keys, members, model_providers).
CREATE FUNCTION "bump_lookup_epoch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM "move_lookup_epoch"(OLD."organization_id");
  ELSE
    PERFORM "move_lookup_epoch"(NEW."organization_id");
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION "bump_organization_lookup_epoch"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "move_lookup_epoch"(NEW."id");
  RETURN NULL;
END $$;

-- A user's email is in every key check of their personal keys, in each organization they are a member of.
CREATE FUNCTION "bump_user_lookup_epochs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "move_lookup_epoch"(m."organization_id")
    FROM (SELECT DISTINCT "organization_id" FROM "members" WHERE "user_id" = NEW."id" ORDER BY 1) m;
  RETURN NULL;
END $$;

-- What the key check reads (src/server/auth/authenticate.ts): a key's revocation, scopes, name,
-- kind and member; the member's role, removal and user; the user's email; the organization's plan
-- and switches. Not last_used_at, not credits: those change on every request or run.
CREATE CONSTRAINT TRIGGER "api_keys_lookup_epoch" AFTER UPDATE ON "api_keys" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD."revoked_at" IS DISTINCT FROM NEW."revoked_at" OR OLD."scopes" IS DISTINCT FROM NEW."scopes"
    OR OLD."name" IS DISTINCT FROM NEW."name" OR OLD."kind" IS DISTINCT FROM NEW."kind"
    OR OLD."member_id" IS DISTINCT FROM NEW."member_id" OR OLD."organization_id" IS DISTINCT FROM NEW."organization_id")
  EXECUTE FUNCTION "bump_lookup_epoch"();
CREATE CONSTRAINT TRIGGER "api_keys_deleted_lookup_epoch" AFTER DELETE ON "api_keys" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "bump_lookup_epoch"();
CREATE CONSTRAINT TRIGGER "members_lookup_epoch" AFTER UPDATE ON "members" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD."role" IS DISTINCT FROM NEW."role" OR OLD."removed_at" IS DISTINCT FROM NEW."removed_at"
    OR OLD."user_id" IS DISTINCT FROM NEW."user_id")
  EXECUTE FUNCTION "bump_lookup_epoch"();
CREATE CONSTRAINT TRIGGER "members_deleted_lookup_epoch" AFTER DELETE ON "members" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION "bump_lookup_epoch"();
CREATE CONSTRAINT TRIGGER "users_lookup_epoch" AFTER UPDATE ON "users" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD."email" IS DISTINCT FROM NEW."email")
  EXECUTE FUNCTION "bump_user_lookup_epochs"();
CREATE CONSTRAINT TRIGGER "organizations_lookup_epoch" AFTER UPDATE ON "organizations" DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD."plan" IS DISTINCT FROM NEW."plan" OR OLD."api_enabled" IS DISTINCT FROM NEW."api_enabled"
    OR OLD."apps_api_enabled" IS DISTINCT FROM NEW."apps_api_enabled" OR OLD."mcp_enabled" IS DISTINCT FROM NEW."mcp_enabled")
  EXECUTE FUNCTION "bump_organization_lookup_epoch"();
-- The model list GET /models keeps (src/server/runtime/models.ts).
CREATE CONSTRAINT TRIGGER "model_providers_lookup_epoch" AFTER INSERT OR UPDATE OR DELETE ON "model_providers"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "bump_lookup_epoch"();
