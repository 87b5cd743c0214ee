"use client";
// Organization › Models and prices (admins): every model the organization's agents can use, with
// its price in credits per million tokens and what a typical turn costs; a price is set with the
// form (the model being priced lives in the URL) and removed after a confirm.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useWatch } from "react-hook-form";
import {
  Button,
  ConfirmButton,
  DataTable,
  EditButton,
  ErrorAlert,
  FormField,
  NameWithCode,
  notifyDone,
  PageHeader,
  Panel,
  fieldProblem,
  type Column,
  useZodForm,
  urlStatePage,
  useUrlState,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import {
  MAX_CREDITS_PER_MILLION,
  SetModelPriceInput,
  TYPICAL_TURN,
  turnCredits,
  type ModelPrice,
} from "@/schemas/org/model-prices";
import type { z } from "zod";
import type { Model } from "@/schemas/org/model";

/** The price form's fields of the API's input (the model is the one being priced). */
const PriceFields = SetModelPriceInput.omit({ modelId: true });

const TYPICAL = `${TYPICAL_TURN.inputTokens.toLocaleString("en-US")} input + ${TYPICAL_TURN.outputTokens} output tokens`;

export default urlStatePage(Prices);

function Prices() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const url = useUrlState();
  const models = useQuery(trpc.models.list.queryOptions({}));
  const prices = useQuery(trpc.modelPrices.list.queryOptions());
  const priceOf = new Map(prices.data?.modelPrices.map((price) => [price.modelId, price]));
  const editing = models.data?.models.find((model) => model.id === url.get("model"));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.modelPrices.list.queryKey() });
  const remove = useMutation(
    trpc.modelPrices.delete.mutationOptions({
      onSuccess: () => {
        notifyDone("The price was removed: runs on the model cost 1 credit again.");
        void refresh();
      },
    }),
  );
  const close = () => url.show({});

  return (
    <>
      <PageHeader
        title="Models and prices"
        description={`A run that calls only unpriced models costs 1 credit. Price a model to charge runs by their tokens: the larger of the model's minimum and the tokens' cost, from the organization's balance and the end user's pool. A typical turn is ${TYPICAL}.`}
      />
      <ErrorAlert error={models.error ?? prices.error ?? remove.error} />
      {editing && (
        <PriceForm
          key={editing.id}
          modelId={editing.id}
          price={priceOf.get(editing.id)}
          onDone={() => {
            void refresh();
            close();
          }}
          onCancel={close}
        />
      )}
      <Panel>
        <DataTable
          label="Models and prices"
          rows={models.data && prices.data ? models.data.models : undefined}
          rowTestId="model-price-row"
          cards
          empty="No models."
          columns={priceColumns(priceOf, {
            editingId: editing?.id,
            onEdit: (modelId) => url.show({ model: modelId }),
            onRemove: (modelId) => remove.mutate({ modelId }),
          })}
        />
      </Panel>
    </>
  );
}

/** The models table's columns: the model, its provider, whether it reads images, its price and a typical turn's, and actions. */
function priceColumns(
  priceOf: Map<string, ModelPrice>,
  {
    editingId,
    onEdit,
    onRemove,
  }: { editingId?: string; onEdit: (modelId: string) => void; onRemove: (modelId: string) => void },
): Column<z.infer<typeof Model>>[] {
  return [
    {
      key: "model",
      header: "Model",
      cell: (model) => <NameWithCode name={model.name} code={model.id} />,
      sortValue: (model) => model.id,
    },
    {
      key: "provider",
      header: "Provider",
      cell: (model) => model.provider,
      sortValue: (model) => model.provider,
    },
    {
      key: "images",
      header: "Reads images",
      cell: (model) => (model.acceptsImages ? "Yes" : "No"),
      sortValue: (model) => (model.acceptsImages ? 1 : 0),
    },
    {
      key: "price",
      header: "Per 1M tokens (in / out)",
      nowrap: true,
      cell: (model) => {
        const price = priceOf.get(model.id);
        return price
          ? `${price.inputCreditsPerMillion.toLocaleString("en-US")} / ${price.outputCreditsPerMillion.toLocaleString("en-US")}`
          : "Unpriced";
      },
    },
    {
      key: "minimum",
      header: "Minimum",
      nowrap: true,
      cell: (model) => priceOf.get(model.id)?.minimumCredits ?? "—",
    },
    {
      key: "turn",
      header: "Typical turn",
      nowrap: true,
      cell: (model) => {
        const price = priceOf.get(model.id);
        return <span data-testid="typical-turn">{creditsText(price ? turnCredits(price) : 1)}</span>;
      },
      sortValue: (model) => {
        const price = priceOf.get(model.id);
        return price ? turnCredits(price) : 1;
      },
    },
    {
      key: "actions",
      header: "Actions",
      nowrap: true,
      cell: (model) => (
        <PriceActions
          modelId={model.id}
          priced={priceOf.has(model.id)}
          editing={model.id === editingId}
          onEdit={onEdit}
          onRemove={onRemove}
        />
      ),
    },
  ];
}

/** Setting or editing a model's price, and removing it after a confirm. */
function PriceActions({
  modelId,
  priced,
  editing,
  onEdit,
  onRemove,
}: {
  modelId: string;
  priced: boolean;
  /** This model's price is the one in the form above. */
  editing: boolean;
  onEdit: (modelId: string) => void;
  onRemove: (modelId: string) => void;
}) {
  return (
    <div className="row">
      <EditButton editing={editing} onClick={() => onEdit(modelId)} aria-label={`Price ${modelId}`}>
        {priced ? "Edit" : "Set price"}
      </EditButton>
      {priced && (
        <ConfirmButton
          label="Remove price"
          title={`Remove the price of ${modelId}?`}
          description="Runs that call only unpriced models cost 1 credit."
          confirmLabel="Remove price"
          onConfirm={() => onRemove(modelId)}
        />
      )}
    </div>
  );
}

function creditsText(credits: number): string {
  return `${credits.toLocaleString("en-US")} credit${credits === 1 ? "" : "s"}`;
}

/** Sets a model's price; what a typical turn would cost is shown as the numbers change. */
function PriceForm({
  modelId,
  price,
  onDone,
  onCancel,
}: {
  modelId: string;
  price: ModelPrice | undefined;
  onDone: () => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const form = useZodForm(PriceFields, {
    defaultValues: {
      inputCreditsPerMillion: price?.inputCreditsPerMillion ?? 0,
      outputCreditsPerMillion: price?.outputCreditsPerMillion ?? 0,
      minimumCredits: price?.minimumCredits ?? 1,
    },
  });
  const set = useMutation(
    trpc.modelPrices.set.mutationOptions({
      onSuccess: () => {
        notifyDone(`${modelId} priced.`);
        onDone();
      },
    }),
  );
  // The preview reads the numbers as typed, when the API would take them.
  const typed = PriceFields.safeParse(useWatch({ control: form.control }));
  const submit = form.handleSubmit((draft) => set.mutate({ modelId, ...draft }));

  const field = (name: keyof typeof PriceFields.shape) => (
    <input
      type="number"
      min={0}
      max={MAX_CREDITS_PER_MILLION}
      step={1}
      required
      {...form.register(name, { valueAsNumber: true })}
    />
  );
  return (
    <Panel title={<>Price {modelId}</>} headingId="price-title" onSubmit={(event) => void submit(event)}>
      <div className="row">
        <FormField label="Credits per 1M input tokens" error={fieldProblem(form, "inputCreditsPerMillion")}>
          {field("inputCreditsPerMillion")}
        </FormField>
        <FormField label="Credits per 1M output tokens" error={fieldProblem(form, "outputCreditsPerMillion")}>
          {field("outputCreditsPerMillion")}
        </FormField>
        <FormField label="Minimum credits per run" error={fieldProblem(form, "minimumCredits")}>
          {field("minimumCredits")}
        </FormField>
      </div>
      <p className="muted" data-testid="typical-turn-preview">
        A typical turn ({TYPICAL}) costs {typed.success ? creditsText(turnCredits(typed.data)) : "—"}.
      </p>
      <ErrorAlert error={set.error} />
      <div className="row">
        <Button variant="primary" type="submit" disabled={set.isPending || !typed.success}>
          Save price
        </Button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </Panel>
  );
}
