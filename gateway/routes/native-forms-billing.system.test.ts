/**
 * A request costs the same and is charged to the same key whatever form it comes in on: the same
 * conversation through the chat-completion, Messages and Gemini forms gives the same generation
 * record cost, and all three show up in the key's balance once settled.
 */
import { eventually } from '../../testing/eventually';
import { startGatewayProcess, type GatewayProcess } from '../../testing/gateway-process';

let gateway: GatewayProcess;
let key: string;

beforeAll(async () => {
  gateway = await startGatewayProcess();
  key = (await gateway.createKey(['--kind', 'account', '--limit-usd', '5'])).key;
});
afterAll(async () => {
  await gateway?.stop();
});

const prompt = 'Say something about budgets and settlement.';
const model = 'sim/chat-standard';

/** Sends one request; returns its trace id (the generation record's id). */
async function send(path: string, headers: Record<string, string>, body: unknown): Promise<string> {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('cf-ray')!;
}

async function getJson(path: string) {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return response.json();
}

it('charges a request on each form the same, to the same key, and settles all of them into its balance', async () => {
  const before = await getJson('/v1/balance');

  const chat = await send(
    '/v1/chat/completions',
    { authorization: `Bearer ${key}` },
    {
      model,
      max_tokens: 40,
      temperature: 0,
      messages: [{ role: 'user', content: prompt }],
    },
  );
  const messages = await send(
    '/v1/messages',
    { 'x-api-key': key },
    {
      model,
      max_tokens: 40,
      temperature: 0,
      messages: [{ role: 'user', content: prompt }],
    },
  );
  const gemini = await send(
    `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
    { 'x-goog-api-key': key },
    {
      contents: [{ role: 'user', parts: [{ text: prompt }] }],
      generationConfig: { maxOutputTokens: 40, temperature: 0 },
    },
  );

  const records = await eventually(async () => {
    const found = await Promise.all(
      [chat, messages, gemini].map((id) => getJson(`/v1/generation?id=${encodeURIComponent(id)}`)),
    );
    return found.every((record) => record.settlement === 'settled') ? found : undefined;
  }, 15_000);
  expect(records.map((record) => record.form)).toEqual(['chat_completions', 'messages', 'gemini']);
  expect(records[2].streamed).toBe(true);
  // The same conversation is the same canonical request, so the same tokens and the same cost.
  const [first] = records;
  expect(first.cost_usd).toBeGreaterThan(0);
  for (const record of records) {
    expect(record.prompt_tokens).toBe(first.prompt_tokens);
    expect(record.completion_tokens).toBe(first.completion_tokens);
    expect(record.cost_usd).toBe(first.cost_usd);
  }

  const after = await getJson('/v1/balance');
  const charged = records.reduce(
    (sum: number, record: { cost_usd: number }) => sum + record.cost_usd,
    0,
  );
  expect(after.consumption_usd - before.consumption_usd).toBeCloseTo(charged, 9);
  expect(after.remaining_usd).toBeCloseTo(before.remaining_usd - charged, 9);
});
