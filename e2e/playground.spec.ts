/**
 * The playground against the real BFF and the embedded gateway (simulated models): a streamed
 * reply with its trace id, Stop that the gateway records as ended early, compare, a tool-call
 * round trip, an image (flagged on a text-only model, dropped by New conversation), a depleted
 * key's 402 advice (on a paid and a :free model), and history across a reload.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from './fixtures';
import { cfRayPattern, generationRecordSchema } from '../contract/gateway';
import { balanceViewSchema } from '../contract/workbench-api';
import { e2eDatabase, e2eDataDir, e2eGatewayPort } from './environment';

const gatewayUrl = `http://127.0.0.1:${e2eGatewayPort}`;

/** The gateway's command line on the e2e database; `--json` commands print one object. */
function gatewayCli(args: string[]): unknown {
  const output = execFileSync(
    'npm',
    ['run', '--silent', 'gateway', '--', ...args, '--db', e2eDatabase],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return args.includes('--json') ? (JSON.parse(output) as unknown) : output;
}

/** The demo keys the start script created; the test needs one to read generation records. */
function demoKey(profile: string): string {
  const keys = JSON.parse(
    fs.readFileSync(path.join(e2eDataDir, 'demo-keys.json'), 'utf8'),
  ) as Record<string, string>;
  const key = keys[profile];
  if (!key) throw new Error(`No demo key ${profile} in ${e2eDataDir}/demo-keys.json`);
  return key;
}

async function chooseModel(page: Page, label: string, modelId: string) {
  const combobox = page.getByRole('combobox', { name: label, exact: true });
  await combobox.fill(modelId);
  // The option's name is the id, then its badges and price: up to a space, so that
  // sim/chat-standard is not sim/chat-standard:free too.
  const escaped = modelId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await page.getByRole('option', { name: new RegExp(`^${escaped}(\\s|$)`) }).click();
  await expect(combobox).toHaveValue(modelId);
}

/** A 1×1 PNG. */
const pixelPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Attaches the 1×1 PNG to the draft through `Attach image`, and waits for its thumbnail. */
async function attachPixel(page: Page) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Attach image' }).click();
  await (await chooser).setFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: pixelPng });
  await expect(page.getByRole('img', { name: 'Image 1 to send' })).toBeVisible();
}

async function setMaxTokens(page: Page, value: number) {
  await page.getByRole('spinbutton', { name: 'max_tokens' }).fill(String(value));
}

async function sendMessage(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** Waits for the reply at `turn` to finish and returns its trace id. */
async function finishedTraceId(page: Page, turn: number): Promise<string> {
  const reply = page.getByRole('listitem', { name: `assistant turn ${turn}` });
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toHaveCount(0, {
    timeout: 30_000,
  });
  await expect(reply.getByText('Trace ID', { exact: true })).toBeVisible();
  const traceId = reply.getByLabel('Trace ID', { exact: true });
  await expect(traceId).toHaveText(cfRayPattern);
  return (await traceId.textContent()) ?? '';
}

// Every test starts from a page of its own and puts back what it changes (a depleted key is
// recharged): spread them over both workers instead of running the file's 22 on one.
test.describe.configure({ mode: 'parallel' });

test.describe('playground', () => {
  test('sends a message and shows the streamed reply with its Trace ID and metrics', async ({
    page,
  }) => {
    await page.goto('/playground?model=sim/chat-standard');
    await expect(page.getByRole('combobox', { name: 'Model', exact: true })).toHaveValue(
      'sim/chat-standard',
    );
    await setMaxTokens(page, 40);
    const chatRequest = page.waitForRequest((request) => request.url().endsWith('/api/chat'));
    await sendMessage(page, 'Hello from the end-to-end test');
    expect((await chatRequest).postDataJSON()).toMatchObject({
      profile: 'demo-account',
      request: { model: 'sim/chat-standard', max_tokens: 40, stream: true },
    });

    const traceId = await finishedTraceId(page, 2);
    expect(traceId).toMatch(/^[0-9a-f]{16}-[A-Z]{3}$/);
    const reply = page.getByRole('listitem', { name: 'assistant turn 2' });
    await expect(reply).toContainText('You said');
    await expect(reply.getByText('Finish reason')).toBeVisible();
    await expect(reply.getByText(/^\$\d/)).toBeVisible();

    await reply.getByRole('button', { name: 'Raw request and response of turn 2' }).click();
    const dialog = page.getByRole('dialog', { name: 'Raw request and response' });
    await dialog.getByRole('tab', { name: 'Gateway request' }).click();
    await expect(dialog).toContainText('Authorization: Bearer sk-');
    await expect(dialog).toContainText('…');
    await expect(dialog).not.toContainText(demoKey('demo-account'));
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Get code' }).click();
    const code = page.getByRole('dialog', { name: 'Get code' });
    await expect(code).toContainText('$GATEWAY_API_KEY');
    await code.getByRole('tab', { name: 'JavaScript (openai)' }).click();
    await expect(code).toContainText(`${'http://127.0.0.1'}:${e2eGatewayPort}/v1`);
    await expect(code).not.toContainText(demoKey('demo-account'));
  });

  test('Stop keeps the partial reply and the gateway records the request as ended early', async ({
    page,
    request,
  }) => {
    // On a phone's screen, where Stop used to start below the fold.
    await page.setViewportSize({ width: 390, height: 740 });
    await page.goto('/playground?model=sim/chat-standard');
    await setMaxTokens(page, 3000);
    // "Write N words" makes the simulated model answer at length: Stop lands mid-stream.
    await sendMessage(page, 'Write 3000 words about gateways');

    const reply = page.getByRole('listitem', { name: 'assistant turn 2' });
    const stop = page.getByRole('button', { name: 'Stop', exact: true });
    await expect(stop).toBeVisible();
    // Some text has streamed in before Stop: the reply is partial, not empty.
    await expect(reply).toContainText('You said');
    // The composer is pinned to the viewport's bottom, and the page follows the text.
    await expect(stop).toBeInViewport();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await expect(reply.getByLabel('Trace ID', { exact: true })).toHaveText(cfRayPattern);
    await stop.click();

    await expect(reply.getByText('Stopped — partial reply')).toBeVisible();
    await expect(reply).toContainText('You said');
    const traceId = (await reply.getByLabel('Trace ID', { exact: true }).textContent()) ?? '';

    const key = demoKey('demo-account');
    await expect
      .poll(async () => {
        const response = await request.get(
          `${gatewayUrl}/v1/generation?id=${encodeURIComponent(traceId)}`,
          {
            headers: { Authorization: `Bearer ${key}` },
          },
        );
        if (!response.ok()) return `HTTP ${response.status()}`;
        return generationRecordSchema.parse(await response.json()).outcome;
      })
      .toBe('ended_early');
  });

  test('compares two models side by side, each with its own metrics', async ({ page }) => {
    await page.goto('/playground?model=sim/chat-standard');
    await setMaxTokens(page, 30);
    await page.getByRole('checkbox', { name: 'Compare' }).check();
    await chooseModel(page, 'Compare with', 'sim/echo-mini');
    const chatRequests: unknown[] = [];
    page.on('request', (sent) => {
      if (sent.url().endsWith('/api/chat')) chatRequests.push(sent.postDataJSON());
    });
    await sendMessage(page, 'Compare these two');

    const results = page.getByRole('region', { name: 'Compare results' });
    for (const model of ['sim/chat-standard', 'sim/echo-mini']) {
      const lane = results.getByRole('listitem', { name: `Reply of ${model}` });
      await expect(lane.getByLabel('Trace ID', { exact: true })).toHaveText(cfRayPattern, {
        timeout: 30_000,
      });
      await expect(lane.getByText('Finish reason')).toBeVisible();
    }
    await expect(page.getByRole('button', { name: 'Stop', exact: true })).toHaveCount(0);
    expect(
      chatRequests.map((body) => (body as { request: { model: string } }).request.model).sort(),
    ).toEqual(['sim/chat-standard', 'sim/echo-mini']);

    await results.getByRole('button', { name: 'Continue with sim/echo-mini' }).click();
    await expect(page.getByRole('combobox', { name: 'Model', exact: true })).toHaveValue(
      'sim/echo-mini',
    );
    await expect(page.getByRole('listitem', { name: 'assistant turn 2' })).toBeVisible();
  });

  test('completes a tool-call round trip', async ({ page }) => {
    await page.goto('/playground?model=sim/chat-standard');
    await setMaxTokens(page, 40);
    await page.getByRole('button', { name: 'Insert example' }).click();
    await sendMessage(page, 'What is the weather in Oslo?');

    const callReply = page.getByRole('listitem', { name: 'assistant turn 2' });
    await expect(callReply.getByRole('list', { name: 'Tool calls' })).toContainText('get_weather');
    // The simulated model fills the city from the question.
    await expect(callReply.getByRole('list', { name: 'Tool calls' })).toContainText('Oslo');
    await expect(callReply.getByText('tool_calls')).toBeVisible();
    const result = page.getByRole('textbox', { name: /Result for get_weather/ });
    await result.fill('{"temperature_c": 21, "sky": "clear"}');
    const continued = page.waitForRequest((sent) => sent.url().endsWith('/api/chat'));
    await page.getByRole('button', { name: 'Submit tool results' }).click();
    const body = (await continued).postDataJSON() as {
      request: { messages: { role: string; tool_call_id?: string }[] };
    };
    expect(body.request.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ]);
    expect(body.request.messages[2]?.tool_call_id).toMatch(/^call_/);

    await expect(page.getByRole('listitem', { name: 'tool turn 3' })).toContainText(
      'temperature_c',
    );
    await finishedTraceId(page, 4);
    await expect(page.getByRole('listitem', { name: 'assistant turn 4' })).toContainText(/\w+/);
  });

  test('attaches an image and sends it as an image_url part', async ({ page }) => {
    await page.goto('/playground?model=sim/vision-pro');
    await setMaxTokens(page, 40);
    await attachPixel(page);

    const chatRequest = page.waitForRequest((sent) => sent.url().endsWith('/api/chat'));
    await sendMessage(page, 'What is in this image?');
    const body = (await chatRequest).postDataJSON() as {
      request: { messages: { content: { type: string; image_url?: { url: string } }[] }[] };
    };
    const parts = body.request.messages[0]?.content ?? [];
    expect(parts.map((part) => part.type)).toEqual(['text', 'image_url']);
    expect(parts[1]?.image_url?.url).toMatch(/^data:image\/png;base64,/);

    await finishedTraceId(page, 2);
    await expect(page.getByRole('listitem', { name: 'assistant turn 2' })).toContainText(
      'I received 1 image',
    );
    await expect(page.getByRole('img', { name: 'Attached image 1' })).toBeVisible();
  });

  /**
   * Runs `body` with the demo allocated child depleted (limit 0), restored afterwards. Profiles
   * are fixed when the workbench starts, so a new key cannot become one at run time.
   */
  async function withDepletedChild(request: APIRequestContext, body: () => Promise<void>) {
    const list = gatewayCli(['keys', 'list', '--json']) as {
      data: { id: string; name: string | null; limit_usd: number | null }[];
    };
    const child = list.data.find((key) => key.name === 'demo-allocated-child');
    if (!child) throw new Error('The demo allocated child key is missing from the e2e database.');
    const originalLimit = child.limit_usd ?? 5;
    gatewayCli(['keys', 'set', child.id, '--limit-usd', '0']);
    try {
      await expect
        .poll(async () => {
          const response = await request.get('/api/balance?profile=demo-allocated-child');
          return response.ok()
            ? balanceViewSchema.parse(await response.json()).state
            : `HTTP ${response.status()}`;
        })
        .toBe('depleted');
      await body();
    } finally {
      gatewayCli(['keys', 'set', child.id, '--limit-usd', String(originalLimit)]);
    }
  }

  /** Sends one message with the depleted child on `model`; returns the reply's alert. */
  async function refusedReply(page: Page, model: string) {
    await page.goto(`/playground?model=${model}&profile=demo-allocated-child`);
    await expect(page.getByRole('combobox', { name: 'Key' })).toContainText('demo-allocated-child');
    await expect(page.getByRole('combobox', { name: 'Model', exact: true })).toHaveValue(model);
    await setMaxTokens(page, 20);
    await sendMessage(page, 'This should not be admitted');
    if (!model.endsWith(':free')) {
      // The playground knows the key cannot pay, and holds the send until told to go anyway.
      await expect(page.getByRole('alert').filter({ hasText: 'Not sent yet' })).toContainText(
        'It has nothing left',
      );
      await page.getByRole('button', { name: 'Send anyway' }).click();
    }
    const alert = page.getByRole('listitem', { name: 'assistant turn 2' }).getByRole('alert');
    await expect(alert).toContainText('402');
    return alert;
  }

  test('a depleted key shows the 402 advice in place', async ({ page, request }) => {
    await withDepletedChild(request, async () => {
      const alert = await refusedReply(page, 'sim/chat-standard');
      await expect(alert).toContainText(/balance/i);
      await expect(alert).toContainText('a cheaper or :free model does not help');
      await expect(alert).toContainText('Do not retry unchanged');
    });
  });

  test('on a :free model, a depleted key’s advice does not offer a cheaper model', async ({
    page,
    request,
  }) => {
    await withDepletedChild(request, async () => {
      const alert = await refusedReply(page, 'sim/chat-standard:free');
      await expect(alert).toContainText(/balance/i);
      await expect(alert).toContainText(':free ones included');
      await expect(alert).not.toContainText(/cheaper/i);
      await expect(alert).toContainText('Do not retry unchanged');
    });
  });

  test('the exported code runs against the gateway with the key from the environment', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await page.goto('/playground?model=sim/echo-mini');
    await setMaxTokens(page, 12);
    await page.getByRole('textbox', { name: 'System prompt' }).fill('Answer briefly.');
    await page.getByRole('textbox', { name: 'Message' }).fill('Say hello to the snippet');
    await page.getByRole('button', { name: 'Get code' }).click();
    const dialog = page.getByRole('dialog', { name: 'Get code' });
    const snippetDir = path.resolve('.tmp/e2e-snippets');
    fs.mkdirSync(snippetDir, { recursive: true });
    const key = demoKey('demo-account');

    // Saved under the name the dialog gives and run as it says: plain Node for the JavaScript.
    const runs: { tab: string; file: string; command: string[] }[] = [
      { tab: 'curl', file: 'request.sh', command: ['bash'] },
      { tab: 'JavaScript (openai)', file: 'openai.mjs', command: ['node'] },
      { tab: 'Messages (@anthropic-ai/sdk)', file: 'anthropic.mjs', command: ['node'] },
      { tab: 'Gemini (@google/genai)', file: 'gemini.mjs', command: ['node'] },
    ];
    for (const run of runs) {
      await dialog.getByRole('tab', { name: run.tab }).click();
      await expect(dialog.getByRole('tabpanel')).toContainText(`Save as ${run.file}`);
      const code = (await dialog.getByRole('tabpanel').locator('pre').textContent()) ?? '';
      expect(code).not.toContain(key);
      const file = path.join(snippetDir, run.file);
      fs.writeFileSync(file, code);
      const [program = 'bash', ...programArguments] = run.command;
      const output = execFileSync(program, [...programArguments, file], {
        encoding: 'utf8',
        env: { ...process.env, GATEWAY_API_KEY: key },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(output, `${run.tab} printed the model's answer`).toMatch(/\w+/);
    }
  });

  test('history survives a reload and reopens the conversation', async ({ page }) => {
    await page.goto('/playground?model=sim/echo-mini');
    await setMaxTokens(page, 20);
    const words = `History check ${Date.now().toString(36)}`;
    await sendMessage(page, words);
    await finishedTraceId(page, 2);

    await page.reload();
    await page.getByRole('button', { name: 'History' }).click();
    const dialog = page.getByRole('dialog', { name: 'History' });
    const entry = dialog.getByRole('listitem').filter({ hasText: words });
    await expect(entry).toContainText('sim/echo-mini');
    await entry.getByRole('button', { name: `Open ${words}` }).click();
    await expect(page.getByRole('listitem', { name: 'user turn 1' })).toContainText(words);
    await expect(
      page
        .getByRole('listitem', { name: 'assistant turn 2' })
        .getByLabel('Trace ID', { exact: true }),
    ).toHaveText(cfRayPattern);
  });

  test('with tools defined, every exported snippet prints the tool calls', async ({ page }) => {
    test.setTimeout(120_000);
    await page.goto('/playground?model=sim/chat-standard');
    await setMaxTokens(page, 40);
    await page.getByRole('button', { name: 'Insert example' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('What is the weather in Oslo?');
    await page.getByRole('button', { name: 'Get code' }).click();
    const dialog = page.getByRole('dialog', { name: 'Get code' });
    const snippetDir = path.resolve('.tmp/e2e-snippets');
    fs.mkdirSync(snippetDir, { recursive: true });
    for (const [tab, file] of [
      ['JavaScript (openai)', 'tools-openai.mjs'],
      ['Messages (@anthropic-ai/sdk)', 'tools-anthropic.mjs'],
      ['Gemini (@google/genai)', 'tools-gemini.mjs'],
    ] as const) {
      await dialog.getByRole('tab', { name: tab }).click();
      const code = (await dialog.getByRole('tabpanel').locator('pre').textContent()) ?? '';
      fs.writeFileSync(path.join(snippetDir, file), code);
      const output = execFileSync('node', [path.join(snippetDir, file)], {
        encoding: 'utf8',
        env: { ...process.env, GATEWAY_API_KEY: demoKey('demo-account') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(output, tab).toMatch(/tool call.*get_weather.*Oslo/);
    }
  });

  test('a stopped reply shows what the gateway charged, labelled as charged', async ({
    page,
    request,
  }) => {
    // Polling for a record not written yet must not log failed requests (red 404s).
    const failedRequests: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failedRequests.push(`${response.status()} ${response.url()}`);
    });
    await page.goto('/playground?model=sim/chat-standard');
    await setMaxTokens(page, 3000);
    await sendMessage(page, 'Write 3000 words about budgets');
    const reply = page.getByRole('listitem', { name: 'assistant turn 2' });
    await expect(reply).toContainText('You said');
    // While it streams, the figures are estimates and say so.
    await expect(reply.getByText('Cost (estimate)')).toBeVisible();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect(reply.getByText('Charged', { exact: true })).toBeVisible({ timeout: 10_000 });
    await expect(reply).toContainText('from the gateway’s generation record · ended early');
    expect(failedRequests).toEqual([]);

    const traceId = (await reply.getByLabel('Trace ID', { exact: true }).textContent()) ?? '';
    const response = await request.get(
      `${gatewayUrl}/v1/generation?id=${encodeURIComponent(traceId)}`,
      {
        headers: { Authorization: `Bearer ${demoKey('demo-account')}` },
      },
    );
    const record = generationRecordSchema.parse(await response.json());
    const figures = reply.locator('dl');
    await expect(
      figures.locator('div').filter({ hasText: 'Prompt tokens' }).locator('dd'),
    ).toHaveText(record.prompt_tokens.toLocaleString('en-US'));
    await expect(
      figures.locator('div').filter({ hasText: 'Completion tokens' }).locator('dd'),
    ).toHaveText(record.completion_tokens.toLocaleString('en-US'));
    const charged =
      (await figures.locator('div').filter({ hasText: 'Charged' }).locator('dd').textContent()) ??
      '';
    expect(Number(charged.replace('$', ''))).toBeCloseTo(record.cost_usd, 5);
  });

  test('a request the gateway never received shows no cost', async ({ page }) => {
    // The workbench's answer when the gateway is down: it never got the request.
    await page.route('**/api/chat', (route) =>
      route.fulfill({
        status: 502,
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            message: `Cannot connect to the gateway at ${gatewayUrl} (ECONNREFUSED).`,
            stage: 'connect',
          },
        }),
      }),
    );
    await page.goto('/playground?model=sim/chat-standard');
    await sendMessage(page, 'Anybody there?');
    const reply = page.getByRole('listitem', { name: 'assistant turn 2' });
    await expect(reply.getByText('$0.00 · not sent')).toBeVisible();
    await expect(reply).toContainText('never reached the gateway: nothing was charged');
    await expect(reply.getByText(/≈/)).toHaveCount(0);
  });

  test('the tool role is offered only to answer an open tool call', async ({ page }) => {
    await page.goto('/playground?model=sim/chat-standard');
    await setMaxTokens(page, 40);
    const role = page.getByRole('combobox', { name: 'Role', exact: true });
    await expect(role.locator('option', { hasText: 'tool' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Insert example' }).click();
    await sendMessage(page, 'What is the weather in Oslo?');
    await expect(
      page.getByRole('listitem', { name: 'assistant turn 2' }).getByText('tool_calls'),
    ).toBeVisible();

    await role.selectOption('tool');
    const answers = page.getByRole('combobox', { name: 'Answers' });
    const callId = await answers.inputValue();
    expect(callId).toMatch(/^call_/);
    const sent = page.waitForRequest((request) => request.url().endsWith('/api/chat'));
    await sendMessage(page, '{"temperature_c": 21}');
    const body = (await sent).postDataJSON() as {
      request: { messages: { role: string; tool_call_id?: string }[] };
    };
    expect(body.request.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: callId });
    await finishedTraceId(page, 4);
    await expect(
      page.getByRole('listitem', { name: 'assistant turn 4' }).getByRole('alert'),
    ).toHaveCount(0);
  });

  test('a file that is not an image is refused before it is attached', async ({ page }) => {
    await page.goto('/playground?model=sim/vision-pro');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Attach image' }).click();
    await (
      await chooser
    ).setFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('plain text') });
    await expect(
      page
        .getByRole('alert')
        .filter({ hasText: '“notes.png” is not a PNG, JPEG, GIF or WebP image' }),
    ).toBeVisible();
    await expect(page.getByRole('img', { name: 'Image 1 to send' })).toHaveCount(0);
  });

  test('New conversation drops an image still in the draft', async ({ page }) => {
    await page.goto('/playground?model=sim/vision-pro');
    // A turn without an image, so there is a conversation to leave (`Add` empties the draft, so
    // the image comes after it and stays in the draft).
    await page.getByRole('textbox', { name: 'Message' }).fill('A first turn');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(page.getByRole('listitem', { name: 'user turn 1' })).toBeVisible();
    await attachPixel(page);

    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect(page.getByRole('listitem', { name: 'user turn 1' })).toHaveCount(0);
    await expect(page.getByRole('img', { name: 'Image 1 to send' })).toHaveCount(0);
  });

  test('an image in the draft is flagged when a text-only model is chosen', async ({ page }) => {
    await page.goto('/playground?model=sim/vision-pro');
    await attachPixel(page);

    await chooseModel(page, 'Model', 'sim/echo-mini');
    const flag = page
      .getByRole('alert')
      .filter({ hasText: 'This image cannot be sent: sim/echo-mini does not take image input.' });
    await expect(flag).toBeVisible();
    await expect(page.getByRole('img', { name: 'Image 1 to send' })).toBeVisible();
    await flag.getByRole('button', { name: 'Remove the image' }).click();
    await expect(page.getByRole('img', { name: 'Image 1 to send' })).toHaveCount(0);
    await expect(flag).toHaveCount(0);
  });

  test('a reload brings back the conversation and its system prompt', async ({ page }) => {
    await page.goto('/playground?model=sim/echo-mini');
    await setMaxTokens(page, 20);
    await page.getByRole('textbox', { name: 'System prompt' }).fill('Answer in one line.');
    await sendMessage(page, 'Remember me after a reload');
    await finishedTraceId(page, 2);
    await page.reload();
    await expect(page.getByText(/conversation from before the reload is back/)).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'System prompt' })).toHaveValue(
      'Answer in one line.',
    );
    await expect(page.getByRole('listitem', { name: 'user turn 1' })).toContainText(
      'Remember me after a reload',
    );
    await expect(
      page
        .getByRole('listitem', { name: 'assistant turn 2' })
        .getByLabel('Trace ID', { exact: true }),
    ).toHaveText(cfRayPattern);
    const stored = await page.evaluate(() =>
      window.localStorage.getItem('workbench.playground.current.v1'),
    );
    expect(stored).not.toContain(demoKey('demo-account'));
    await page.getByRole('button', { name: 'New conversation' }).click();
    await expect(page.getByRole('listitem', { name: 'user turn 1' })).toHaveCount(0);
  });

  test('after a compare run, a new message asks which reply it follows', async ({ page }) => {
    await page.goto('/playground?model=sim/chat-standard');
    await setMaxTokens(page, 20);
    await page.getByRole('checkbox', { name: 'Compare' }).check();
    await chooseModel(page, 'Compare with', 'sim/echo-mini');
    await sendMessage(page, 'Compare these two');
    const results = page.getByRole('region', { name: 'Compare results' });
    await expect(
      results
        .getByRole('listitem', { name: 'Reply of sim/echo-mini' })
        .getByLabel('Trace ID', { exact: true }),
    ).toHaveText(cfRayPattern, { timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Stop', exact: true })).toHaveCount(0);

    await sendMessage(page, 'And a follow-up');
    const question = page.getByRole('group', { name: 'Which reply should your message follow?' });
    await expect(question).toBeVisible();
    // Nothing was thrown away while the question is open.
    await expect(results.getByRole('listitem')).toHaveCount(2);
    const sent = page.waitForRequest((request) => request.url().endsWith('/api/chat'));
    await question.getByRole('button', { name: 'Follow the reply of sim/echo-mini' }).click();
    const body = (await sent).postDataJSON() as { request: { messages: { role: string }[] } };
    expect(body.request.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    await expect(page.getByRole('listitem', { name: 'assistant turn 2' })).toBeVisible();
    await expect(page.getByRole('listitem', { name: 'user turn 3' })).toContainText(
      'And a follow-up',
    );
  });
  test('a re-run from an earlier reply keeps the conversation it replaces in History', async ({
    page,
  }) => {
    await page.goto('/playground?model=sim/echo-mini');
    await setMaxTokens(page, 20);
    const tag = Date.now().toString(36);
    for (const [index, word] of ['one', 'two', 'three'].entries()) {
      await sendMessage(page, `${word} ${tag}`);
      await finishedTraceId(page, 2 * (index + 1));
    }
    await page
      .getByRole('listitem', { name: 'assistant turn 2' })
      .getByRole('button', { name: /^Re-run/ })
      .click();
    await finishedTraceId(page, 2);
    await expect(page.getByRole('listitem', { name: 'user turn 3' })).toHaveCount(0);
    const notice = page.getByRole('status').filter({ hasText: 'before re-run' });
    await expect(notice).toContainText(`“one ${tag} (before re-run)”`);

    // The way back: the conversation as it was, all three turns.
    await notice.getByRole('button', { name: 'Open the earlier conversation' }).click();
    await expect(page.getByRole('listitem', { name: 'user turn 5' })).toContainText(`three ${tag}`);
    await expect(page.getByRole('listitem', { name: 'user turn 3' })).toContainText(`two ${tag}`);
  });

  test('History and Get code give the keyboard focus back to their button when closed', async ({
    page,
  }) => {
    await page.goto('/playground?model=sim/echo-mini');
    for (const name of ['History', 'Get code']) {
      const button = page.getByRole('button', { name, exact: true });
      await button.focus();
      await page.keyboard.press('Enter');
      await expect(page.getByRole('dialog')).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(button).toBeFocused();
    }
  });

  test('the page-level Get code is the request that produced the last reply', async ({ page }) => {
    await page.goto('/playground?model=sim/echo-mini');
    await setMaxTokens(page, 20);
    await sendMessage(page, 'What was sent');
    await finishedTraceId(page, 2);
    await page.getByRole('button', { name: 'Get code', exact: true }).click();
    const code = page.getByRole('dialog', { name: 'Get code' });
    await code.getByRole('tab', { name: 'curl' }).click();
    const text = (await code.locator('pre').first().textContent()) ?? '';
    expect(text).toContain('What was sent');
    expect(text).not.toContain('"role": "assistant"');
  });

  test('a JSON schema response format is checked as typed and reaches the gateway', async ({
    page,
  }) => {
    await page.goto('/playground?model=sim/chat-standard');
    await setMaxTokens(page, 20);
    await page.getByRole('combobox', { name: 'response_format' }).selectOption('json_schema');
    const schema = page.getByRole('textbox', { name: 'JSON schema' });
    await schema.fill('{"type": ');
    await expect(page.getByText(/^The JSON schema is not valid JSON: /)).toBeVisible();
    await schema.fill('{"title": "answer", "type": "object"}');
    await expect(page.getByText(/^The JSON schema is not valid JSON: /)).toHaveCount(0);
    const sent = page.waitForRequest((request) => request.url().endsWith('/api/chat'));
    await sendMessage(page, 'Answer in JSON');
    expect((await sent).postDataJSON()).toMatchObject({
      request: {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'answer', schema: { title: 'answer', type: 'object' } },
        },
      },
    });
    // The gateway took it: the reply finishes with a trace id, not an error.
    await finishedTraceId(page, 2);
  });
});
