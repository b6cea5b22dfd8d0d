/** `GET /api/checks?profile=` (the plan or the last run) and `POST /api/checks` (a run). */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { checksReportSchema, type ChecksReport } from '../../../../contract/workbench-api';
import { apiGet, apiPost, withQuery } from '../../../lib/api-client';
import { mergeReports } from '../checks-report';

export function checksQueryOptions(profile: string) {
  return queryOptions({
    queryKey: ['checks', profile],
    queryFn: ({ signal }) =>
      apiGet(withQuery('/api/checks', { profile }), checksReportSchema, { signal }),
    staleTime: 60_000,
  });
}

export function useChecks(profile: string | null) {
  return useQuery({ ...checksQueryOptions(profile ?? ''), enabled: profile !== null });
}

export interface RunChecksVariables {
  profile: string;
  includePaid: boolean;
  /** Only these check ids (a re-run of one row); all when absent. */
  only?: string[];
}

export function useRunChecks() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variables: RunChecksVariables): Promise<ChecksReport> =>
      apiPost(
        '/api/checks',
        {
          profile: variables.profile,
          include_paid: variables.includePaid,
          ...(variables.only ? { only: variables.only } : {}),
        },
        checksReportSchema,
      ),
    onSuccess: (report, variables) => {
      queryClient.setQueryData<ChecksReport>(['checks', variables.profile], (current) =>
        variables.only && current ? mergeReports(current, report) : report,
      );
      // Paid checks spend money: the balance is worth a fresh look.
      if (variables.includePaid)
        void queryClient.invalidateQueries({ queryKey: ['balance', variables.profile] });
    },
  });
}
