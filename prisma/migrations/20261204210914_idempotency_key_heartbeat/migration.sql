-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
