-- CreateEnum
CREATE TYPE "BuilderKind" AS ENUM ('agent', 'flow', 'app');

-- CreateTable
CREATE TABLE "builder_items" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "kind" "BuilderKind" NOT NULL,
    "draft" JSONB NOT NULL,
    "production_version_id" UUID,
    "version_count" INTEGER NOT NULL DEFAULT 0,
    "last_change" JSONB NOT NULL,
    "live_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "builder_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "builder_versions" (
    "id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "notes" TEXT NOT NULL DEFAULT '',
    "document" JSONB NOT NULL,
    "pins" JSONB,
    "published_by" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "builder_versions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "builder_items_organization_id_kind_created_at_id_idx" ON "builder_items"("organization_id", "kind", "created_at", "id");

-- CreateIndex
CREATE INDEX "builder_versions_item_id_created_at_id_idx" ON "builder_versions"("item_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "builder_versions_item_id_number_key" ON "builder_versions"("item_id", "number");

-- AddForeignKey
ALTER TABLE "builder_items" ADD CONSTRAINT "builder_items_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "builder_versions" ADD CONSTRAINT "builder_versions_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "builder_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;
