// Console only (no REST path): the command palette's search by name.
import { FindByNameInput, FindByNameOutput } from "@/schemas/find";
import { findByName } from "@/server/services/org/name-search";
import { memberProcedure, router } from "../../init";

export const findRouter = router({
  byName: memberProcedure(findByName.requirement)
    .input(FindByNameInput)
    .output(FindByNameOutput)
    .query(({ ctx, input }) => findByName(ctx.db, ctx.actor, input)),
});
