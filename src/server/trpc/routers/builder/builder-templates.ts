// The builder's "New from template" (console only): the starter flows and apps, and copying one.
import { z } from "zod";
import {
  CopyBuilderTemplateInput,
  CopyBuilderTemplateOutput,
  ListBuilderTemplatesOutput,
} from "@/schemas/builder/builder-templates";
import { copyBuilderTemplate, listBuilderTemplates } from "@/server/services/builder/builder-templates";
import { memberProcedure, router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const builderTemplatesRouter = router({
  list: memberProcedure(listBuilderTemplates.requirement)
    .input(z.void())
    .output(ListBuilderTemplatesOutput)
    .query(({ ctx }) => listBuilderTemplates(ctx.db, ctx.actor)),
  copy: memberCalls.mutationWith(copyBuilderTemplate, CopyBuilderTemplateInput, CopyBuilderTemplateOutput),
});
