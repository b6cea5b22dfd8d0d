import { describe, expect, it, vi } from 'vitest';
import type { ActivityRequest, GenerationsPage } from '../../../contract/workbench-api';
import { makeActivityRequest } from '../../test/fixtures';
import { fetchAllRequests, requestsToCsv } from './requests-csv';

const pages = vi.hoisted(() => new Map<string | null, unknown>());
vi.mock('./api/generations', () => ({
  fetchGenerationsPage: vi.fn(async (_profile: string, _filters: unknown, cursor: string | null) =>
    pages.get(cursor),
  ),
}));

function request(overrides: Partial<ActivityRequest>): ActivityRequest {
  return makeActivityRequest(0xa1, 1_800_000_000, overrides);
}

describe('the per-request CSV', () => {
  it('has one line per request with its trace id, key, tokens, exact cost, outcome and latency', () => {
    const csv = requestsToCsv(
      [
        request({}),
        request({
          id: '00000000000000a2-AMS',
          cost_usd: 3.3e-7,
          outcome: 'ended_early',
          child: { id: 'key_bot', name: 'bot, nightly', masked_key: 'sk-…b0t5' },
        }),
      ],
      'demo-account',
    );
    expect(csv.split('\r\n')).toEqual([
      'time_utc,cf_ray,key,model,provider,prompt_tokens,completion_tokens,cost_usd,outcome,latency_ms',
      '2027-01-15T08:00:00.000Z,00000000000000a1-AMS,demo-account,sim/chat-standard,simulated,12,40,0.000132,completed,820',
      '2027-01-15T08:00:00.000Z,00000000000000a2-AMS,"bot, nightly (sk-…b0t5)",sim/chat-standard,simulated,12,40,0.00000033,ended_early,820',
      '',
    ]);
    // Only data lines: no totals line to take for a request.
    expect(csv).not.toMatch(/total/i);
  });

  it('reads every page the cursor leads to', async () => {
    const page = (rows: ActivityRequest[], next: string | null): GenerationsPage => ({
      profile: 'demo-account',
      data: rows,
      next_cursor: next,
      fetched_at: 1,
    });
    pages.set(null, page([request({ id: '0000000000000001-AMS' })], 'c1'));
    pages.set('c1', page([request({ id: '0000000000000002-AMS' })], null));
    const all = await fetchAllRequests('demo-account', {
      from: 0,
      to: 1,
      model: null,
      outcome: null,
      keyId: null,
    });
    expect(all.truncated).toBe(false);
    expect(all.requests.map((row) => row.id)).toEqual([
      '0000000000000001-AMS',
      '0000000000000002-AMS',
    ]);
  });
});
