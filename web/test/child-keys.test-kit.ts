/** Contract-shaped child keys and BFF answers for the child-key tests. */
import type { QueryClient } from '@tanstack/react-query';
import { waitFor } from '@testing-library/react';
import type { ChildKey, ChildKeys, RotationLine } from '../../contract/workbench-api';
import { makeBalanceView } from './fixtures';
import { jsonResponse, mockPageApi, type MockHandler } from './render-app';

export function makeChildKey(overrides: Partial<ChildKey> & { id: string }): ChildKey {
  return {
    kind: 'allocated_child',
    parent_id: 'key_account',
    name: overrides.id,
    key: 'sk-gw-…9f3a',
    state: 'active',
    limit_usd: 5,
    grace_usd: 0,
    consumption_usd: 1.25,
    remaining_usd: 3.75,
    allocated_usd: 5,
    expires_at: null,
    disabled: false,
    created_at: 1_760_000_000,
    revoked_at: null,
    profile: null,
    ...overrides,
  };
}

export const nightly = makeChildKey({
  id: 'key_nightly',
  name: 'nightly-report',
  key: 'sk-gw-…n1g7',
  expires_at: 1_893_456_000,
  profile: 'nightly-report',
});

export const sharedBot = makeChildKey({
  id: 'key_bot',
  kind: 'shared_child',
  name: 'chat-bot',
  key: 'sk-gw-…b0t5',
  limit_usd: null,
  grace_usd: null,
  consumption_usd: null,
  remaining_usd: 7.5,
  allocated_usd: null,
  profile: null,
});

export function childKeysAnswer(keys: ChildKey[], overrides: Partial<ChildKeys> = {}): ChildKeys {
  return {
    profile: 'demo-account',
    keys,
    keys_store: 'data/workbench-keys.json',
    fetched_at: 1_760_000_000_000,
    ...overrides,
  };
}

export const childKeysPath = '/api/profiles/demo-account/child-keys';

/** The Keys page's BFF, with the demo account's children as `keys` (changeable by the test). */
export function mockChildKeysPage(keys: () => ChildKey[], extra: Record<string, MockHandler> = {}) {
  return mockPageApi({
    'GET /api/balance': (request) => {
      const profile = request.url.searchParams.get('profile') ?? 'demo-account';
      const identity =
        profile === 'demo-account'
          ? 'account'
          : profile.includes('shared')
            ? 'shared_child'
            : 'allocated_child';
      return makeBalanceView({ profile, balance: { identity } });
    },
    'GET /api/catalog': () => ({ models: [], fetched_at: 1, skipped: 0 }),
    [`GET ${childKeysPath}`]: () => childKeysAnswer(keys()),
    // The Notifications section beside the child keys, empty unless a test says otherwise.
    'GET /api/profiles/demo-account/webhooks': () => ({
      profile: 'demo-account',
      webhooks: [],
      fetched_at: 1,
    }),
    ...extra,
  });
}

/** A 4xx answer in the BFF's error shape. */
export function apiError(status: number, message: string, extra: Record<string, unknown> = {}) {
  return jsonResponse(status, { error: { message, stage: 'validation', ...extra } });
}

/**
 * An NDJSON answer whose lines the test sends one by one (`push`), then ends (`end`), so what
 * the page shows mid-flow can be checked.
 */
export function ndjsonStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
    },
  });
  return {
    response: new Response(body, { headers: { 'Content-Type': 'application/x-ndjson' } }),
    push(line: RotationLine | string) {
      controller.enqueue(
        encoder.encode(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`),
      );
    },
    end() {
      controller.close();
    },
  };
}

/**
 * A handed-over key, once its dialog has closed, is kept nowhere the page can reach: not in the
 * page, not in the mutation cache (it leaves at once), not in any query's data.
 */
export async function expectHandedOverKeyForgotten(queryClient: QueryClient, secret: string) {
  expect(document.body.innerHTML).not.toContain(secret);
  await waitFor(() => expect(queryClient.getMutationCache().getAll()).toHaveLength(0));
  const cached = queryClient
    .getQueryCache()
    .getAll()
    .map((query) => query.state.data);
  expect(JSON.stringify(cached)).not.toContain(secret);
}
