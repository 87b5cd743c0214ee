-- A row of a conversation run's events may hold a range of consecutive events of one name (a
-- tick's deltas, issue 53): `seq` the first's id, `last_seq` the last's; null for one event.
-- AlterTable
ALTER TABLE "conversation_run_events" ADD COLUMN     "last_seq" INTEGER;
