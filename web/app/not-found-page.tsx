import { Link, useLocation } from 'react-router';
import { PageLayout } from '../components/page-layout';

export function NotFoundPage() {
  const location = useLocation();
  return (
    <PageLayout title="Page not found">
      <p className="text-sm">
        The workbench has no page at <code className="font-mono">{location.pathname}</code>.{' '}
        <Link className="text-sky-700 underline dark:text-sky-400" to="/catalog">
          Go to the catalog
        </Link>
        .
      </p>
    </PageLayout>
  );
}
