-- AlterTable
ALTER TABLE "portals" ADD COLUMN     "accent_color" TEXT,
ADD COLUMN     "featured_app_ids" UUID[] DEFAULT ARRAY[]::UUID[],
ADD COLUMN     "greeting" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "logo_url" TEXT,
ADD COLUMN     "slug" TEXT;

-- Existing portals get a slug from their name, made unique by the start of their id.
UPDATE "portals" SET "slug" = trim(both '-' from left(trim(both '-' from regexp_replace(lower("name"), '[^a-z0-9]+', '-', 'g')), 40)) || '-' || left("id"::text, 6);
UPDATE "portals" SET "slug" = trim(leading '-' from "slug");
ALTER TABLE "portals" ALTER COLUMN "slug" SET NOT NULL;

-- AlterTable
ALTER TABLE "conversations" ADD COLUMN     "end_user_id" UUID,
ADD COLUMN     "portal_id" UUID;

-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "end_user_id" UUID,
ADD COLUMN     "portal_id" UUID;

-- CreateTable
CREATE TABLE "end_user_sign_in_codes" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "end_user_id" UUID NOT NULL,
    "portal_id" UUID NOT NULL,
    "code_hash" TEXT NOT NULL,
    "wrong_tries" INTEGER NOT NULL DEFAULT 0,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "end_user_sign_in_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "end_user_sessions" (
    "id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "organization_id" UUID NOT NULL,
    "end_user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "end_user_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_messages" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "end_user_sign_in_codes_end_user_id_created_at_idx" ON "end_user_sign_in_codes"("end_user_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "end_user_sessions_token_hash_key" ON "end_user_sessions"("token_hash");

-- CreateIndex
CREATE INDEX "end_user_sessions_end_user_id_idx" ON "end_user_sessions"("end_user_id");

-- CreateIndex
CREATE INDEX "outbox_messages_organization_id_created_at_id_idx" ON "outbox_messages"("organization_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "portals_slug_key" ON "portals"("slug");

-- CreateIndex
CREATE INDEX "conversations_end_user_id_updated_at_id_idx" ON "conversations"("end_user_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "executions_organization_id_end_user_id_created_at_id_idx" ON "executions"("organization_id", "end_user_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "executions_organization_id_portal_id_created_at_id_idx" ON "executions"("organization_id", "portal_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "end_user_sign_in_codes" ADD CONSTRAINT "end_user_sign_in_codes_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "end_user_sessions" ADD CONSTRAINT "end_user_sessions_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "outbox_messages" ADD CONSTRAINT "outbox_messages_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- When a credit pool next resets: its reset time moved on by whole calendar months (in UTC,
-- clamped to the month's end as PostgreSQL's interval '1 month') until it is after `now_at`.
CREATE FUNCTION credits_reset_after(reset_at TIMESTAMPTZ, now_at TIMESTAMPTZ) RETURNS TIMESTAMPTZ
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  anchor TIMESTAMP := reset_at AT TIME ZONE 'UTC';
  elapsed INTERVAL := age(now_at AT TIME ZONE 'UTC', anchor);
  months INT := greatest(1, (extract(year FROM elapsed) * 12 + extract(month FROM elapsed))::INT);
BEGIN
  IF reset_at > now_at THEN
    RETURN reset_at;
  END IF;
  WHILE (anchor + make_interval(months => months)) AT TIME ZONE 'UTC' <= now_at LOOP
    months := months + 1;
  END LOOP;
  RETURN (anchor + make_interval(months => months)) AT TIME ZONE 'UTC';
END $$;
