/**
 * The workbench's routes. The playground feature (web/features/playground/) is owned and built
 * separately; this file only mounts its `PlaygroundPage` at `/playground`.
 */
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { CatalogPage } from '../features/catalog/catalog-page';
import { SignInPage } from '../features/sign-in/sign-in-page';
import { AppShell } from './app-shell';
import { NotFoundPage } from './not-found-page';

/**
 * Shown inside the shell while a lazy page's code loads on a direct load or reload (React
 * Router's hydrate fallback; without one it renders nothing and warns in the console).
 */
const pageLoading = (
  <p role="status" className="p-4 text-sm text-zinc-600 dark:text-zinc-400">
    Loading the page…
  </p>
);

export const routes: RouteObject[] = [
  // Outside the shell: before signing in, nothing the shell asks for would answer.
  { path: 'sign-in', element: <SignInPage /> },
  {
    element: <AppShell />,
    children: [
      { index: true, element: <Navigate to="/catalog" replace /> },
      { path: 'catalog', element: <CatalogPage /> },
      // The other pages load when first visited (the playground brings the Markdown renderer and
      // the highlighter, the activity page its charts), so the first page loads only what it shows.
      {
        path: 'playground',
        hydrateFallbackElement: pageLoading,
        lazy: () =>
          import('../features/playground/playground-page').then((page) => ({
            Component: page.PlaygroundPage,
          })),
      },
      {
        path: 'keys',
        hydrateFallbackElement: pageLoading,
        lazy: () =>
          import('../features/keys/keys-page').then((page) => ({ Component: page.KeysPage })),
      },
      {
        path: 'endpoints',
        hydrateFallbackElement: pageLoading,
        lazy: () =>
          import('../features/endpoints/endpoints-page').then((page) => ({
            Component: page.EndpointsPage,
          })),
      },
      {
        path: 'activity',
        hydrateFallbackElement: pageLoading,
        lazy: () =>
          import('../features/activity/activity-page').then((page) => ({
            Component: page.ActivityPage,
          })),
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routes);
}
