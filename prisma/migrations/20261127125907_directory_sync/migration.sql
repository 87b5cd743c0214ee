-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "directory_default_plan_id" UUID;

-- AlterTable
ALTER TABLE "end_users" ADD COLUMN     "suspended_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "user_groups" ADD COLUMN     "directory_managed" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "directory_version" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "external_id" TEXT,
ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "directory_users" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "user_name" TEXT NOT NULL,
    "user_name_key" TEXT NOT NULL,
    "external_id" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "attributes" JSONB NOT NULL,
    "end_user_id" UUID,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "directory_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "directory_group_members" (
    "group_id" UUID NOT NULL,
    "directory_user_id" UUID NOT NULL,
    "added_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "directory_group_members_pkey" PRIMARY KEY ("group_id","directory_user_id")
);

-- CreateTable
CREATE TABLE "directory_events" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "directory_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "directory_users_organization_id_created_at_id_idx" ON "directory_users"("organization_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "directory_users_end_user_id_idx" ON "directory_users"("end_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "directory_users_organization_id_user_name_key_key" ON "directory_users"("organization_id", "user_name_key");

-- CreateIndex
CREATE INDEX "directory_group_members_directory_user_id_idx" ON "directory_group_members"("directory_user_id");

-- CreateIndex
CREATE INDEX "directory_events_organization_id_created_at_idx" ON "directory_events"("organization_id", "created_at");

-- AddForeignKey
ALTER TABLE "directory_users" ADD CONSTRAINT "directory_users_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "directory_users" ADD CONSTRAINT "directory_users_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "end_users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "directory_group_members" ADD CONSTRAINT "directory_group_members_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "user_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "directory_group_members" ADD CONSTRAINT "directory_group_members_directory_user_id_fkey" FOREIGN KEY ("directory_user_id") REFERENCES "directory_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "directory_events" ADD CONSTRAINT "directory_events_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
