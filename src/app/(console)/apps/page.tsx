import { BuilderList } from "@/components/builder/builder-list";

export default function Page() {
  return <BuilderList kind="apps" />;
}
