-- CreateTable
CREATE TABLE "knowledgebases" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "end_user_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "knowledgebases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "knowledgebases_organization_id_created_at_id_idx" ON "knowledgebases"("organization_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "knowledgebases" ADD CONSTRAINT "knowledgebases_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
