-- AlterTable
ALTER TABLE "invitations" ADD COLUMN     "member_id" UUID;

-- CreateIndex
CREATE INDEX "invitations_member_id_idx" ON "invitations"("member_id");

-- AddForeignKey
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE CASCADE;
