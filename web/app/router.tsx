/**
 * The workbench's routes. The playground feature (web/features/playground/) is owned and built
 * separately; this file only mounts its `PlaygroundPage` at `/playground`.
 */
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { CatalogPage } from '../features/catalog/catalog-page';
import { EndpointsPage } from '../features/endpoints/endpoints-page';
import { KeysPage } from '../features/keys/keys-page';
import { PlaygroundPage } from '../features/playground/playground-page';
import { AppShell } from './app-shell';
import { NotFoundPage } from './not-found-page';

export const routes: RouteObject[] = [
  {
    element: <AppShell />,
    children: [
      { index: true, element: <Navigate to="/catalog" replace /> },
      { path: 'catalog', element: <CatalogPage /> },
      { path: 'playground', element: <PlaygroundPage /> },
      { path: 'keys', element: <KeysPage /> },
      { path: 'endpoints', element: <EndpointsPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routes);
}
