"use client";
// Portal admissions from both sides: on a group's page the portals it is admitted to (and a
// picker to admit it to another), on a portal's page the groups admitted to it. Ending an
// admission is for admins, through the confirm dialog.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { ConfirmButton, DataTable, ErrorAlert, notifyDone, type Column, useMay, When } from "@/components/console";
import { EntityPicker } from "@/components/entity-picker";
import { useTRPC } from "@/lib/trpc";

type Admission = { portalId: string; groupId: string; createdAt: string };

/** The admission's table columns: the other side by name, since when, and Remove for admins. */
function useAdmissionColumns<Row extends Admission>(
  named: Column<Row>,
  describe: (row: Row) => { portal: string; group: string },
): { columns: Column<Row>[]; error: unknown } {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.portals.removeAdmission.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.portals.pathKey() }),
    }),
  );
  const mayDelete = useMay("delete");
  const columns: Column<Row>[] = [
    named,
    { key: "since", header: "Admitted", nowrap: true, cell: (row) => <When at={row.createdAt} day /> },
  ];
  if (mayDelete)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      nowrap: true,
      cell: (row) => {
        const { portal, group } = describe(row);
        return (
          <ConfirmButton
            label="Remove"
            title={`Remove ${group} from ${portal}?`}
            description="Its members no longer enter the portal through this group; access they have through another admitted group stays."
            confirmLabel="Remove from portal"
            onConfirm={() =>
              remove.mutate(
                { portalId: row.portalId, groupId: row.groupId },
                { onSuccess: () => notifyDone(`${group} removed from ${portal}.`) },
              )
            }
          />
        );
      },
    });
  return { columns, error: remove.error };
}

export function GroupPortals({ groupId, groupName }: { groupId: string; groupName: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const admissions = useQuery(trpc.portals.admissionsOfGroup.queryOptions({ groupId }));
  const admit = useMutation(
    trpc.portals.admit.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.portals.pathKey() }),
    }),
  );
  const { columns, error } = useAdmissionColumns<Admission & { portalName: string }>(
    {
      key: "portal",
      header: "Portal",
      cell: (admission) => <Link href={`/portals/${admission.portalId}`}>{admission.portalName}</Link>,
      sortValue: (admission) => admission.portalName,
    },
    (admission) => ({ portal: admission.portalName, group: groupName }),
  );
  return (
    <>
      <ErrorAlert error={admissions.error ?? admit.error ?? error} />
      <DataTable
        label="Portals this group is admitted to"
        cards
        rows={admissions.data}
        rowKey={(admission) => admission.portalId}
        rowTestId="group-portal"
        empty="Not admitted to any portal yet."
        columns={columns}
      />
      <div className="row" style={{ marginTop: "0.75rem" }}>
        <EntityPicker
          kinds={["portal"]}
          label="Admit to a portal"
          emptyText="No portals yet: create one under Portals."
          exclude={admissions.data?.map((admission) => admission.portalId)}
          onPick={(portal) =>
            admit.mutate(
              { portalId: portal.id, groupId },
              { onSuccess: () => notifyDone(`Admitted to ${portal.name}.`) },
            )
          }
        />
      </div>
    </>
  );
}

export function PortalGroups({ portalId, portalName }: { portalId: string; portalName: string }) {
  const trpc = useTRPC();
  const admissions = useQuery(trpc.portals.admissions.queryOptions({ portalId }));
  const { columns, error } = useAdmissionColumns<Admission & { groupName: string }>(
    {
      key: "group",
      header: "User group",
      cell: (admission) => <Link href={`/groups/${admission.groupId}`}>{admission.groupName}</Link>,
      sortValue: (admission) => admission.groupName,
    },
    (admission) => ({ portal: portalName, group: admission.groupName }),
  );
  return (
    <>
      <ErrorAlert error={admissions.error ?? error} />
      <DataTable
        label="User groups admitted to this portal"
        cards
        rows={admissions.data}
        rowKey={(admission) => admission.groupId}
        rowTestId="portal-group"
        empty="No user group is admitted yet: admit one from its group's page."
        columns={columns}
      />
    </>
  );
}
