-- Guessing limits (issue 25, item 3): the hourly cap on portal sign-in codes per organization and
-- email, and the console's per-account progressive sign-in delay.
-- CreateTable
CREATE TABLE "portal_code_requests" (
    "organization_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "requested_at" TIMESTAMPTZ(3)[],
    "last_requested_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "portal_code_requests_pkey" PRIMARY KEY ("organization_id","email")
);

-- CreateTable
CREATE TABLE "sign_in_delays" (
    "throttle" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "last_failure_at" TIMESTAMPTZ(3) NOT NULL,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_delays_pkey" PRIMARY KEY ("throttle","account")
);

-- CreateIndex
CREATE INDEX "portal_code_requests_last_requested_at_idx" ON "portal_code_requests"("last_requested_at");

-- CreateIndex
CREATE INDEX "sign_in_delays_last_failure_at_idx" ON "sign_in_delays"("last_failure_at");
