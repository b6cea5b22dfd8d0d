/** Placeholder: the playground feature is owned by another helper, who replaces this file. */
import { PageLayout } from '../../components/page-layout';

export function PlaygroundPage() {
  return (
    <PageLayout title="Playground">
      <p className="text-sm">The playground is being built.</p>
    </PageLayout>
  );
}
