-- CreateEnum
CREATE TYPE "CreditRequestStatus" AS ENUM ('open', 'granted', 'dismissed');

-- CreateTable
CREATE TABLE "credit_requests" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "end_user_id" UUID NOT NULL,
    "message" TEXT NOT NULL DEFAULT '',
    "status" "CreditRequestStatus" NOT NULL DEFAULT 'open',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "credit_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "credit_requests_organization_id_end_user_id_status_idx" ON "credit_requests"("organization_id", "end_user_id", "status");

-- AddForeignKey
ALTER TABLE "credit_requests" ADD CONSTRAINT "credit_requests_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_requests" ADD CONSTRAINT "credit_requests_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
