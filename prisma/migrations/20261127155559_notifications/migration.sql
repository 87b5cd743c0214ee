-- CreateTable
CREATE TABLE "notification_reads" (
    "organization_id" UUID NOT NULL,
    "member_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "item_id" UUID NOT NULL,
    "read_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "notification_reads_pkey" PRIMARY KEY ("member_id","kind","item_id")
);

-- CreateTable
CREATE TABLE "notification_email_settings" (
    "organization_id" UUID NOT NULL,
    "member_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_email_settings_pkey" PRIMARY KEY ("member_id","kind")
);

-- CreateTable
CREATE TABLE "notification_emails_sent" (
    "organization_id" UUID NOT NULL,
    "member_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "item_id" UUID NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "sent_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_emails_sent_pkey" PRIMARY KEY ("member_id","kind","item_id","occurred_at")
);

-- CreateIndex
CREATE INDEX "notification_reads_organization_id_member_id_idx" ON "notification_reads"("organization_id", "member_id");

-- CreateIndex
CREATE INDEX "notification_email_settings_organization_id_idx" ON "notification_email_settings"("organization_id");

-- CreateIndex
CREATE INDEX "notification_emails_sent_organization_id_idx" ON "notification_emails_sent"("organization_id");

-- AddForeignKey
ALTER TABLE "notification_reads" ADD CONSTRAINT "notification_reads_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_email_settings" ADD CONSTRAINT "notification_email_settings_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_emails_sent" ADD CONSTRAINT "notification_emails_sent_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE CASCADE;
