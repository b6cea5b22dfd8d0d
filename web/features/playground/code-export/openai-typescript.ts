/** The request with the `openai` TypeScript client; its base URL includes `/v1` (spec 5.4). */
import { defaultKeyVariable, openAiBaseUrl, redactKeys, type CodeExportInput } from './shared';

export function generateOpenAiTypeScript(input: CodeExportInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const body = JSON.stringify(input.request, null, 2);
  const header = [
    "import OpenAI from 'openai';",
    '',
    'const client = new OpenAI({',
    `  apiKey: process.env.${keyVariable},`,
    `  baseURL: ${JSON.stringify(openAiBaseUrl(input.gatewayBaseUrl))},`,
    '});',
    '',
  ];
  const call = input.request.stream
    ? [
        `const stream = await client.chat.completions.create(${body});`,
        '',
        'for await (const chunk of stream) {',
        "  process.stdout.write(chunk.choices[0]?.delta?.content ?? '');",
        '}',
      ]
    : [
        `const completion = await client.chat.completions.create(${body});`,
        '',
        'console.info(completion.choices[0]?.message);',
        'console.info(completion.usage);',
      ];
  return redactKeys([...header, ...call].join('\n'));
}
