/** Contract-shaped test data for component tests (and the local preview server). */
import { usageOf } from '../../contract/generation-record';
import type {
  ActivityRequest,
  BalanceView,
  CatalogModel,
  CheckResult,
  ChecksReport,
  Health,
  Profile,
  ProviderEndpoint,
} from '../../contract/workbench-api';

export function makeModel(overrides: Partial<CatalogModel> & { id: string }): CatalogModel {
  const [author = 'acme', rest = overrides.id] = overrides.id.split('/');
  const variant = rest.includes(':') ? (rest.split(':')[1] ?? null) : null;
  const model: CatalogModel = {
    name: rest,
    author,
    variant,
    description: '',
    created: 1_700_000_000,
    context_length: 128_000,
    max_completion_tokens: 16_384,
    prompt_price: '0.000001',
    completion_price: '0.000002',
    input_modalities: ['text'],
    output_modalities: ['text'],
    supported_parameters: ['max_tokens', 'temperature'],
    providers: ['simulated'],
    raw: {},
    ...overrides,
  };
  return {
    ...model,
    raw: Object.keys(model.raw).length ? model.raw : { id: model.id, name: model.name },
  };
}

/** One provider of a model as the BFF lists it: healthy, without traffic unless told. */
export function makeProviderEndpoint(
  overrides: Partial<ProviderEndpoint> & { provider: string },
): ProviderEndpoint {
  return {
    kind: 'openai-compatible',
    upstream_model: 'gpt-4o-mini',
    order: 1,
    prompt_price: '0.00000015',
    completion_price: '0.0000006',
    context_length: 128_000,
    max_completion_tokens: 16_384,
    status: 'healthy',
    retry_after: null,
    uptime_last_30m: null,
    latency_ms_p50: null,
    ttft_ms_p50: null,
    ...overrides,
  };
}

const authors = [
  'openai',
  'anthropic',
  'google',
  'meta-llama',
  'mistralai',
  'qwen',
  'deepseek',
  'x-ai',
];

/** `count` varied models, deterministic, for the virtualised list and filter performance. */
export function makeCatalog(count: number): CatalogModel[] {
  return Array.from({ length: count }, (_, index) => {
    const author = authors[index % authors.length] ?? 'acme';
    const variant = index % 10 === 0 ? 'free' : index % 10 === 5 ? 'batch' : null;
    const base = `model-${String(index).padStart(4, '0')}`;
    const id = `${author}/${base}${variant ? `:${variant}` : ''}`;
    const promptMicros = variant === 'free' ? 0 : (index % 17) * 0.15 + 0.1;
    return makeModel({
      id,
      name: `${author} ${base}`,
      description: index % 3 === 0 ? 'Fast vision model for agents' : 'General chat model',
      created: 1_700_000_000 + index * 3600,
      context_length: [8192, 32_768, 128_000, 200_000, 1_048_576][index % 5] ?? null,
      prompt_price:
        variant === 'free' ? '0' : (promptMicros / 1_000_000).toFixed(12).replace(/0+$/, ''),
      completion_price:
        variant === 'free' ? '0' : ((promptMicros * 4) / 1_000_000).toFixed(12).replace(/0+$/, ''),
      input_modalities: index % 3 === 0 ? ['text', 'image'] : ['text'],
      output_modalities: index % 50 === 7 ? ['image'] : ['text'],
      supported_parameters:
        index % 2 === 0
          ? ['max_tokens', 'temperature', 'tools', 'response_format']
          : ['max_tokens', 'temperature'],
      raw: {
        id,
        name: `${author} ${base}`,
        pricing: { prompt: '0', completion: '0', image: '0.001' },
        top_provider: { is_moderated: true },
      },
    });
  });
}

export const demoProfiles: Profile[] = [
  { name: 'demo-account', masked_key: 'sk-gw-…a1b2', identity: 'account' },
  { name: 'demo-allocated-child', masked_key: 'sk-gw-…c3d4', identity: 'allocated_child' },
  { name: 'demo-shared-child', masked_key: 'sk-gw-…e5f6', identity: 'shared_child' },
];

/** `GET /api/health` of the embedded gateway, answering. */
export const reachableHealth: Health = {
  mode: 'embedded',
  gateway_base_url: 'http://127.0.0.1:8787',
  reachable: true,
  latency_ms: 1,
};

export function makeBalanceView(
  overrides: Omit<Partial<BalanceView>, 'balance'> & {
    balance?: Partial<BalanceView['balance']>;
  } = {},
): BalanceView {
  const { balance, ...rest } = overrides;
  return {
    profile: 'demo-account',
    state: 'active',
    guidance: 'Requests are served while balance remains.',
    cf_ray: '0123456789abcdef-AMS',
    fetched_at: 1_760_000_000_000,
    ...rest,
    balance: {
      object: 'balance',
      key: 'sk-gw-…a1b2',
      identity: 'account',
      remaining_usd: 7.5,
      limit_usd: 10,
      recharge_usd: 10,
      credit_usd: 0,
      allocated_usd: 0,
      consumption_usd: 2.5,
      grace_usd: 0.05,
      expires_at: null,
      expired: false,
      disabled: false,
      settlement: 'asynchronous',
      note: 'Consumption settles asynchronously.',
      ...balance,
    },
  };
}

export function makeCheck(overrides: Partial<CheckResult> & { id: string }): CheckResult {
  return {
    entry: 'Model list',
    method: 'GET',
    path: '/v1/models',
    auth_form: 'none',
    planned: false,
    paid: false,
    estimated_cost_usd: 0,
    outcome: 'skipped',
    status: null,
    latency_ms: null,
    cf_ray: null,
    explanation: 'Not run yet.',
    ran_at: null,
    ...overrides,
  };
}

export function makeChecksReport(ran: boolean): ChecksReport {
  const ranAt = ran ? 1_760_000_000_000 : null;
  const done = (
    check: CheckResult,
    outcome: CheckResult['outcome'],
    status: number,
    explanation: string,
  ): CheckResult =>
    ran
      ? {
          ...check,
          outcome,
          status,
          latency_ms: 42,
          cf_ray: '0123456789abcdef-AMS',
          explanation,
          ran_at: ranAt,
        }
      : check;
  return {
    profile: 'demo-account',
    ran_at: ranAt,
    results: [
      done(makeCheck({ id: 'models' }), 'available', 200, 'The catalog answers.'),
      done(
        makeCheck({
          id: 'balance-bearer',
          entry: 'Balance',
          path: '/v1/balance',
          auth_form: 'bearer',
        }),
        'available',
        200,
        'Balance answers.',
      ),
      done(
        makeCheck({
          id: 'gemini-bearer',
          entry: 'Gemini generateContent',
          method: 'POST',
          path: '/v1beta/models/{model}:generateContent',
          auth_form: 'bearer-on-vendor-b',
        }),
        'expected_error',
        401,
        'A Bearer token on the Gemini form is rejected with 401, as the spec says.',
      ),
      makeCheck({
        id: 'chat-paid',
        entry: 'Chat completions',
        method: 'POST',
        path: '/v1/chat/completions',
        auth_form: 'bearer',
        paid: true,
        estimated_cost_usd: 0.00002,
      }),
      done(
        makeCheck({
          id: 'generation',
          entry: 'Generation records',
          path: '/v1/generation',
          auth_form: 'bearer',
          planned: true,
        }),
        'missing',
        404,
        'Not implemented.',
      ),
    ],
  };
}

/** One request of the Activity page's table: a settled chat request, `index` in its trace id. */
export function makeActivityRequest(
  index: number,
  createdAt: number,
  overrides: Partial<ActivityRequest> = {},
): ActivityRequest {
  return {
    id: `${index.toString(16).padStart(16, '0')}-AMS`,
    created_at: createdAt,
    model: 'sim/chat-standard',
    provider: 'simulated',
    form: 'chat_completions',
    streamed: true,
    prompt_tokens: 12,
    completion_tokens: 40,
    cost_usd: 0.000132,
    latency_ms: 820,
    outcome: 'completed',
    finish_reason: 'stop',
    settlement: 'settled',
    usage_estimated: false,
    charge_capped: false,
    attempts: [{ provider: 'simulated', status: 200, latency_ms: 790 }],
    upstream_model: 'chat-standard',
    ...usageOf({}),
    settled_at: createdAt + 5,
    child: null,
    ...overrides,
  };
}
