import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { BrowserRouter } from 'react-router';
import { createQueryClient } from '../lib/query-client';
import { WorkbenchRoutes } from './router';

/** The providers every page needs: server state (TanStack Query) and routing. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <WorkbenchRoutes />
      </BrowserRouter>
    </QueryClientProvider>
  );
}
