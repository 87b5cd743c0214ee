-- CreateEnum
CREATE TYPE "SubscriptionStatus" AS ENUM ('active', 'canceled');

-- CreateEnum
CREATE TYPE "ProvisionedBy" AS ENUM ('api', 'console', 'processor');

-- CreateTable
CREATE TABLE "end_users" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "full_name" TEXT NOT NULL DEFAULT '',
    "auth_method" TEXT NOT NULL DEFAULT 'email',
    "email_verified_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "deleted_at" TIMESTAMPTZ(3),
    "last_seen_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "end_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tier_plans" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "credit_allowance" INTEGER NOT NULL DEFAULT 0,
    "archived_at" TIMESTAMPTZ(3),
    "group_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tier_plans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscriptions" (
    "id" UUID NOT NULL,
    "end_user_id" UUID NOT NULL,
    "tier_plan_id" UUID NOT NULL,
    "status" "SubscriptionStatus" NOT NULL DEFAULT 'active',
    "credit_allowance" INTEGER NOT NULL,
    "credits_used" INTEGER NOT NULL DEFAULT 0,
    "bonus_credits" INTEGER NOT NULL DEFAULT 0,
    "credits_reset_at" TIMESTAMPTZ(3) NOT NULL,
    "provisioned_by" "ProvisionedBy" NOT NULL,
    "is_comped" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_groups" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "group_members" (
    "group_id" UUID NOT NULL,
    "end_user_id" UUID NOT NULL,
    "added_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "group_members_pkey" PRIMARY KEY ("group_id","end_user_id")
);

-- CreateTable
CREATE TABLE "grants" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "end_user_id" UUID,
    "group_id" UUID,
    "target_kind" TEXT NOT NULL,
    "target_id" UUID NOT NULL,
    "effect" TEXT NOT NULL DEFAULT 'allow',
    "deployment_id" UUID,
    "source" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "portals" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "portals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "portal_admissions" (
    "portal_id" UUID NOT NULL,
    "group_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "portal_admissions_pkey" PRIMARY KEY ("portal_id","group_id")
);

-- CreateIndex
CREATE INDEX "end_users_organization_id_created_at_id_idx" ON "end_users"("organization_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "end_users_organization_id_email_key" ON "end_users"("organization_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "tier_plans_group_id_key" ON "tier_plans"("group_id");

-- CreateIndex
CREATE INDEX "tier_plans_organization_id_created_at_id_idx" ON "tier_plans"("organization_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "subscriptions_end_user_id_tier_plan_id_key" ON "subscriptions"("end_user_id", "tier_plan_id");

-- CreateIndex
CREATE INDEX "user_groups_organization_id_created_at_id_idx" ON "user_groups"("organization_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "group_members_end_user_id_idx" ON "group_members"("end_user_id");

-- CreateIndex
CREATE INDEX "grants_organization_id_idx" ON "grants"("organization_id");

-- CreateIndex
CREATE INDEX "portals_organization_id_created_at_id_idx" ON "portals"("organization_id", "created_at", "id");

-- Grants are idempotent: one per holder, target, effect and portal (a missing portal counts as one value).
-- The two unique indexes on grants are made by 20261123093000_grants_unique_any_postgres.

-- AddForeignKey
ALTER TABLE "end_users" ADD CONSTRAINT "end_users_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tier_plans" ADD CONSTRAINT "tier_plans_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tier_plans" ADD CONSTRAINT "tier_plans_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "user_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_tier_plan_id_fkey" FOREIGN KEY ("tier_plan_id") REFERENCES "tier_plans"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_members" ADD CONSTRAINT "group_members_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "user_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_members" ADD CONSTRAINT "group_members_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "grants" ADD CONSTRAINT "grants_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "grants" ADD CONSTRAINT "grants_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "grants" ADD CONSTRAINT "grants_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "user_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "portals" ADD CONSTRAINT "portals_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "portal_admissions" ADD CONSTRAINT "portal_admissions_portal_id_fkey" FOREIGN KEY ("portal_id") REFERENCES "portals"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "portal_admissions" ADD CONSTRAINT "portal_admissions_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "user_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;
