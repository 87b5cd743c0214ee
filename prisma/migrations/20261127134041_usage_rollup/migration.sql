-- CreateTable
CREATE TABLE "usage_rollup" (
    "organization_id" UUID NOT NULL,
    "grain" TEXT NOT NULL,
    "dimension" TEXT NOT NULL,
    "key_id" UUID NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "credits" BIGINT NOT NULL DEFAULT 0,
    "conversations" BIGINT NOT NULL DEFAULT 0,
    "turns" BIGINT NOT NULL DEFAULT 0,
    "transactions" BIGINT NOT NULL DEFAULT 0,
    "test_runs" BIGINT NOT NULL DEFAULT 0,
    "searches" BIGINT NOT NULL DEFAULT 0,
    "failures" BIGINT NOT NULL DEFAULT 0,
    "input_tokens" BIGINT NOT NULL DEFAULT 0,
    "output_tokens" BIGINT NOT NULL DEFAULT 0,
    "refusals" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "usage_rollup_pkey" PRIMARY KEY ("organization_id","grain","dimension","key_id","starts_at")
);

-- CreateIndex
CREATE INDEX "usage_rollup_organization_id_grain_dimension_starts_at_idx" ON "usage_rollup"("organization_id", "grain", "dimension", "starts_at");

-- Adds an organization's recorded executions to the rollup (src/server/services/usage.ts writes
-- the same rows as runs finish). Used once below for the runs recorded before the rollup, and by
-- the usage bench after seeding executions in bulk. Searches and refusals were never recorded,
-- so they start at zero; a run's plan is its end user's first active pool in charge order.
CREATE FUNCTION usage_rollup_backfill(org UUID) RETURNS VOID LANGUAGE SQL AS $$
  INSERT INTO usage_rollup AS r (organization_id, grain, dimension, key_id, starts_at, credits, conversations, turns, transactions, test_runs, failures)
  SELECT org, g.grain, d.dimension, COALESCE(d.key_id, '00000000-0000-0000-0000-000000000000'::UUID), date_trunc(g.grain, run.created_at, 'UTC'),
    SUM(run.credits), SUM(run.started), SUM(run.turn), SUM(run.transaction), SUM(run.test), SUM(run.failure)
  FROM (
    SELECT e.created_at, e.item_id, e.end_user_id, e.portal_id, e.credits,
      (e.kind = 'conversation' AND e.conversation_id IS NOT NULL
        AND row_number() OVER (PARTITION BY e.conversation_id ORDER BY e.created_at, e.id) = 1)::INT AS started,
      (e.kind = 'conversation')::INT AS turn, (e.kind = 'transaction')::INT AS transaction, (e.kind = 'test')::INT AS test,
      (e.status IN ('failed', 'output_invalid'))::INT AS failure,
      (SELECT s.tier_plan_id FROM subscriptions s WHERE s.end_user_id = e.end_user_id AND s.status = 'active'
        ORDER BY s.credits_reset_at, s.created_at, s.id LIMIT 1) AS plan_id
    FROM executions e WHERE e.organization_id = org
  ) AS run
  CROSS JOIN (VALUES ('day'), ('hour'), ('month')) AS g(grain)
  CROSS JOIN LATERAL (VALUES ('organization', NULL::UUID), ('app', run.item_id), ('end_user', run.end_user_id), ('portal', run.portal_id), ('plan', run.plan_id)) AS d(dimension, key_id)
  GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT (organization_id, grain, dimension, key_id, starts_at) DO UPDATE SET
    credits = r.credits + excluded.credits,
    conversations = r.conversations + excluded.conversations,
    turns = r.turns + excluded.turns,
    transactions = r.transactions + excluded.transactions,
    test_runs = r.test_runs + excluded.test_runs,
    failures = r.failures + excluded.failures;
$$;

SELECT usage_rollup_backfill(id) FROM organizations;
