/**
 * The workbench's routes. The playground feature (web/features/playground/) is owned and built
 * separately; this file only mounts its `PlaygroundPage` at `/playground`.
 *
 * React Router runs in its declarative mode (`useRoutes` under a `BrowserRouter`): no page uses
 * loaders, actions or route-level `lazy`, and the data router behind them would add about 16 kB
 * gzipped to the first page's JavaScript.
 */
import { lazy } from 'react';
import { Navigate, useRoutes, type RouteObject } from 'react-router';
import { CatalogPage } from '../features/catalog/catalog-page';
import { SignInPage } from '../features/sign-in/sign-in-page';
import { AppShell } from './app-shell';
import { NotFoundPage } from './not-found-page';

// The other pages load when first visited (the playground brings the Markdown renderer and the
// highlighter, the activity page its charts), so the first page loads only what it shows. The
// shell shows a loading line while one loads (see `AppShell`).
const PlaygroundPage = lazy(() =>
  import('../features/playground/playground-page').then((page) => ({
    default: page.PlaygroundPage,
  })),
);
const KeysPage = lazy(() =>
  import('../features/keys/keys-page').then((page) => ({ default: page.KeysPage })),
);
const EndpointsPage = lazy(() =>
  import('../features/endpoints/endpoints-page').then((page) => ({
    default: page.EndpointsPage,
  })),
);
const PeoplePage = lazy(() =>
  import('../features/people/people-page').then((page) => ({ default: page.PeoplePage })),
);
const ActivityPage = lazy(() =>
  import('../features/activity/activity-page').then((page) => ({ default: page.ActivityPage })),
);

export const routes: RouteObject[] = [
  // Outside the shell: before signing in, nothing the shell asks for would answer.
  { path: 'sign-in', element: <SignInPage /> },
  {
    element: <AppShell />,
    children: [
      { index: true, element: <Navigate to="/catalog" replace /> },
      { path: 'catalog', element: <CatalogPage /> },
      { path: 'playground', element: <PlaygroundPage /> },
      { path: 'keys', element: <KeysPage /> },
      { path: 'endpoints', element: <EndpointsPage /> },
      { path: 'activity', element: <ActivityPage /> },
      { path: 'people', element: <PeoplePage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

/** The page for the current URL; rendered inside a router (`BrowserRouter`, or `MemoryRouter` in tests). */
export function WorkbenchRoutes() {
  return useRoutes(routes);
}
