/** `GET /api/audit` (admins): the newest changes; `auditDownloadPath` gives the whole log. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { auditLogSchema, type AuditLog } from '../../../../contract/workbench-people';
import { apiGet } from '../../../lib/api-client';

export function fetchAudit(signal?: AbortSignal): Promise<AuditLog> {
  return apiGet('/api/audit', auditLogSchema, { signal });
}

export const auditQueryOptions = queryOptions({
  queryKey: ['audit'],
  queryFn: ({ signal }) => fetchAudit(signal),
});

export function useAudit(enabled: boolean) {
  return useQuery({ ...auditQueryOptions, enabled });
}

/** The whole log as a file: the browser downloads it with the session's cookie. */
export const auditDownloadPath = (format: 'csv' | 'json') => `/api/audit?format=${format}`;
