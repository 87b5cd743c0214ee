"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { PortalLink } from "@/components/portal/portal-link";
import { useTRPC } from "@/lib/trpc";
import {
  CreateNamedItemPanel,
  ListTable,
  NAME_COLUMN,
  PageHeader,
  Panel,
  useCursorList,
  useMay,
  useOpenPage,
} from "@/components/console";
import { CreatePortalInput } from "@/schemas/portal/portal";

function Admissions({ portalId }: { portalId: string }) {
  const trpc = useTRPC();
  const admissions = useQuery(trpc.portals.admissions.queryOptions({ portalId }));
  if (!admissions.data) return null;
  if (admissions.data.length === 0) return <span className="muted">no groups admitted</span>;
  return (
    <span>
      {admissions.data.map((admission) => (
        <Link key={admission.groupId} href={`/groups/${admission.groupId}`} className="spaced-link">
          {admission.groupName}
        </Link>
      ))}
    </span>
  );
}

export default function PortalsPage() {
  const trpc = useTRPC();
  const { opening, open } = useOpenPage();
  const queryClient = useQueryClient();
  const portals = useCursorList(
    (cursor) => trpc.portals.list.queryOptions({ limit: 50, ...(cursor ? { cursor } : {}) }),
    (page) => page.portals,
  );
  const mayGrant = useMay("grant");
  const create = useMutation(
    trpc.portals.create.mutationOptions({
      onSuccess: ({ portal }) => {
        void queryClient.invalidateQueries({ queryKey: trpc.portals.list.queryKey() });
        open(`/portals/${portal.id}`);
      },
    }),
  );

  return (
    <>
      <PageHeader
        title="Portals"
        description="Where end users sign in with a code sent to their email and use the apps their access allows. Send them the portal's link."
      />
      {!mayGrant && <p className="muted">Admins and owners create portals and change their settings.</p>}
      {mayGrant && (
        <CreateNamedItemPanel
          schema={CreatePortalInput}
          create={{ ...create, isPending: create.isPending || opening }}
          label="Create a portal"
          submitLabel="Create portal"
          className="inline-form"
        />
      )}
      <Panel>
        <ListTable
          list={portals}
          label="Portals"
          rowTestId="portal-row"
          empty={
            mayGrant
              ? "No portals yet: create one above, then send end users its link."
              : "No portals yet: an admin creates them."
          }
          columns={[
            { ...NAME_COLUMN, cell: (portal) => <Link href={`/portals/${portal.id}`}>{portal.name}</Link> },
            { key: "link", header: "Link", cell: (portal) => <PortalLink slug={portal.slug} /> },
            { key: "groups", header: "Admitted groups", cell: (portal) => <Admissions portalId={portal.id} /> },
          ]}
        />
      </Panel>
    </>
  );
}
