/**
 * The workbench's routes. The playground feature (web/features/playground/) is owned and built
 * separately; this file only mounts its `PlaygroundPage` at `/playground`.
 */
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { CatalogPage } from '../features/catalog/catalog-page';
import { SignInPage } from '../features/sign-in/sign-in-page';
import { AppShell } from './app-shell';
import { NotFoundPage } from './not-found-page';

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
        lazy: () =>
          import('../features/playground/playground-page').then((page) => ({
            Component: page.PlaygroundPage,
          })),
      },
      {
        path: 'keys',
        lazy: () =>
          import('../features/keys/keys-page').then((page) => ({ Component: page.KeysPage })),
      },
      {
        path: 'endpoints',
        lazy: () =>
          import('../features/endpoints/endpoints-page').then((page) => ({
            Component: page.EndpointsPage,
          })),
      },
      {
        path: 'activity',
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
