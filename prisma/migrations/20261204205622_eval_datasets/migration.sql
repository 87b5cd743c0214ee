-- CreateTable
CREATE TABLE "eval_datasets" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "item_kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "case_count" INTEGER NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "eval_datasets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_cases" (
    "id" UUID NOT NULL,
    "dataset_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "external_id" TEXT NOT NULL DEFAULT '',
    "input" TEXT NOT NULL,
    "expected_behavior" TEXT NOT NULL,

    CONSTRAINT "eval_cases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_runs" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "item_kind" TEXT NOT NULL,
    "dataset_id" UUID NOT NULL,
    "version_id" UUID,
    "version_number" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "total" INTEGER NOT NULL,
    "actor" JSONB NOT NULL,
    "actor_label" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "eval_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_results" (
    "id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "case_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "claim_token" UUID,
    "lease_until" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "passed" BOOLEAN,
    "output" TEXT NOT NULL DEFAULT '',
    "reason" TEXT NOT NULL DEFAULT '',
    "error" TEXT,
    "credits" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "latency_ms" INTEGER NOT NULL DEFAULT 0,
    "execution_id" UUID,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "eval_results_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "eval_datasets_organization_id_item_id_created_at_id_idx" ON "eval_datasets"("organization_id", "item_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "eval_cases_dataset_id_position_key" ON "eval_cases"("dataset_id", "position");

-- CreateIndex
CREATE INDEX "eval_runs_organization_id_item_id_created_at_id_idx" ON "eval_runs"("organization_id", "item_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "eval_results_status_lease_until_idx" ON "eval_results"("status", "lease_until");

-- CreateIndex
CREATE UNIQUE INDEX "eval_results_run_id_case_id_key" ON "eval_results"("run_id", "case_id");

-- CreateIndex
CREATE UNIQUE INDEX "eval_results_run_id_position_key" ON "eval_results"("run_id", "position");

-- AddForeignKey
ALTER TABLE "eval_datasets" ADD CONSTRAINT "eval_datasets_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "builder_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_cases" ADD CONSTRAINT "eval_cases_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "eval_datasets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_runs" ADD CONSTRAINT "eval_runs_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "eval_datasets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_results" ADD CONSTRAINT "eval_results_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "eval_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_results" ADD CONSTRAINT "eval_results_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "eval_cases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
