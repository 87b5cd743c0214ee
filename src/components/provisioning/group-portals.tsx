"use client";
// The portals a group is admitted to, listed on the group's page above the form that admits it.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { DataTable, ErrorAlert } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

export function GroupPortals({ groupId }: { groupId: string }) {
  const trpc = useTRPC();
  const admissions = useQuery(trpc.portals.admissionsOfGroup.queryOptions({ groupId }));
  return (
    <>
      <ErrorAlert error={admissions.error} />
      <DataTable
        label="Portals this group is admitted to"
        rows={admissions.data}
        rowKey={(admission) => admission.portalId}
        rowTestId="group-portal"
        empty="Not admitted to any portal yet."
        columns={[
          {
            key: "portal",
            header: "Portal",
            cell: (admission) => <Link href={`/portals/${admission.portalId}`}>{admission.portalName}</Link>,
            sortValue: (admission) => admission.portalName,
          },
          { key: "since", header: "Admitted", nowrap: true, cell: (admission) => new Date(admission.createdAt).toLocaleDateString() },
        ]}
      />
    </>
  );
}
