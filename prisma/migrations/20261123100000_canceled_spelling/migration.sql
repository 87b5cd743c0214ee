-- One spelling of canceled (the contract's): executions recorded before it said "cancelled".
UPDATE "executions" SET "status" = 'canceled' WHERE "status" = 'cancelled';
