-- CreateTable
CREATE TABLE "end_user_export_links" (
    "token_hash" TEXT NOT NULL,
    "organization_id" UUID NOT NULL,
    "end_user_id" UUID NOT NULL,
    "portal_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "end_user_export_links_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "end_user_export_links_end_user_id_created_at_idx" ON "end_user_export_links"("end_user_id", "created_at");

-- AddForeignKey
ALTER TABLE "end_user_export_links" ADD CONSTRAINT "end_user_export_links_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
