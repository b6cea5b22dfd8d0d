/** Renders the workbench's routes in memory with a mocked BFF, for page tests. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, type RenderResult } from '@testing-library/react';
import { useLayoutEffect, type ReactElement } from 'react';
import { MemoryRouter, useLocation, useNavigate, type Location } from 'react-router';
import { vi } from 'vitest';
import { WorkbenchRoutes } from '../app/router';
import { shouldRetry } from '../lib/query-client';
import { demoProfiles, reachableHealth } from './fixtures';

export interface RecordedRequest {
  method: string;
  url: URL;
  body: unknown;
  headers: Headers;
}

/** A handler answers one request: a body (200 JSON), or `{ status, body }`. */
export type MockHandler = (request: RecordedRequest) => unknown;

export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/**
 * Replaces `fetch` with handlers keyed by `METHOD /path`. Unknown paths answer 404 in the
 * contract's error shape so a missing mock fails loudly. Returns the recorded requests.
 */
export function mockApi(handlers: Record<string, MockHandler>): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input), 'http://workbench.test');
      const method = init?.method ?? 'GET';
      const text = typeof init?.body === 'string' ? init.body : undefined;
      const request: RecordedRequest = {
        method,
        url,
        body: text ? (JSON.parse(text) as unknown) : undefined,
        headers: new Headers(init?.headers),
      };
      requests.push(request);
      const handler = handlers[`${method} ${url.pathname}`];
      if (!handler) {
        return jsonResponse(404, {
          error: { message: `No mock for ${method} ${url.pathname}`, stage: 'internal' },
        });
      }
      // A handler may answer later (a request still on its way while something else happens).
      const answer = await handler(request);
      if (answer instanceof Response) return answer;
      return jsonResponse(200, answer);
    }),
  );
  return requests;
}

/**
 * `mockApi` with what every page asks for: the demo profiles and an answering gateway.
 * `handlers` add the page's own routes, or replace these.
 */
export function mockPageApi(handlers: Record<string, MockHandler> = {}): RecordedRequest[] {
  return mockApi({
    'GET /api/profiles': () => ({ profiles: demoProfiles }),
    'GET /api/health': () => reachableHealth,
    // The shell asks whether people sign in (the People link); by default nobody does.
    'GET /api/session': () => ({ required: false, signed_in: false, expires_at: null }),
    ...handlers,
  });
}

/** Tells the test where the router is, and how to move it, after each commit. */
function ReportRouter({
  onRender,
}: {
  onRender(location: Location, navigate: (delta: number) => void): void;
}) {
  const location = useLocation();
  const navigate = useNavigate();
  useLayoutEffect(() => {
    onRender(location, (delta) => void navigate(delta));
  }, [onRender, location, navigate]);
  return null;
}

/**
 * Renders the workbench's routes at `path`, as `App` does but with a router in memory.
 * `currentLocation()` is where the router is now; `navigate(-1)` goes back.
 */
export function renderRoute(path: string, options: { storage?: Record<string, string> } = {}) {
  window.localStorage.clear();
  for (const [name, value] of Object.entries(options.storage ?? {}))
    window.localStorage.setItem(name, value);
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: shouldRetry, retryDelay: 0 }, mutations: { retry: false } },
  });
  let reported: { location: Location; navigate(delta: number): void } | null = null;
  const report = (location: Location, navigate: (delta: number) => void) => {
    reported = { location, navigate };
  };
  const view = render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        <WorkbenchRoutes />
        <ReportRouter onRender={report} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  function current() {
    if (!reported) throw new Error('The router has not rendered yet.');
    return reported;
  }
  const currentLocation = (): Location => current().location;
  const navigate = (delta: number): void => current().navigate(delta);
  return { ...view, queryClient, currentLocation, navigate };
}

/** Renders one component with a query client of its own (no retries unless a query asks). */
export function renderWithQueries(ui: ReactElement): RenderResult & { queryClient: QueryClient } {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  // In a router too: components link to other pages.
  const view = render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter>{ui}</MemoryRouter>
    </QueryClientProvider>,
  );
  return { ...view, queryClient };
}
