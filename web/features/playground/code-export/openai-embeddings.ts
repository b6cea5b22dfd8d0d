/**
 * An embeddings request (`POST /v1/embeddings`) as curl and with the `openai` clients'
 * `client.embeddings.create`, floats as the playground asks for them.
 *
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */
import type { EmbeddingsRequest } from '../../../../contract/workbench-api';
import {
  defaultKeyVariable,
  openAiBaseUrl,
  openAiPythonClient,
  openAiTypeScriptClient,
  pythonArguments,
  redactKeys,
} from './shared';

/** What an embeddings snippet is built from. Never a key. */
export interface EmbeddingsCodeInput {
  gatewayBaseUrl: string;
  request: EmbeddingsRequest['request'];
  keyVariable?: string;
}

function bodyOf(input: EmbeddingsCodeInput): Record<string, unknown> {
  return {
    model: input.request.model,
    input: input.request.input,
    ...(input.request.dimensions !== undefined ? { dimensions: input.request.dimensions } : {}),
    encoding_format: 'float',
  };
}

export function generateEmbeddingsCurl(input: EmbeddingsCodeInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const lines = [
    `curl ${openAiBaseUrl(input.gatewayBaseUrl)}/embeddings \\`,
    `  -H "Authorization: Bearer $${keyVariable}" \\`,
    '  -H "Content-Type: application/json" \\',
    "  -d @- <<'JSON'",
    JSON.stringify(bodyOf(input), null, 2),
    'JSON',
  ];
  return redactKeys(lines.join('\n'));
}

export function generateEmbeddingsTypeScript(input: EmbeddingsCodeInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const lines = [
    ...openAiTypeScriptClient(input.gatewayBaseUrl, keyVariable),
    `const result = await client.embeddings.create(${JSON.stringify(bodyOf(input), null, 2)});`,
    '',
    'for (const entry of result.data) {',
    '  console.info(entry.index, entry.embedding.length, entry.embedding.slice(0, 4));',
    '}',
    'console.info(result.usage);',
  ];
  return redactKeys(lines.join('\n'));
}

export function generateEmbeddingsPython(input: EmbeddingsCodeInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const argumentsText = pythonArguments(bodyOf(input));
  const lines = [
    ...openAiPythonClient(input.gatewayBaseUrl, keyVariable),
    `result = client.embeddings.create(\n${argumentsText}\n)`,
    '',
    'for entry in result.data:',
    '    print(entry.index, len(entry.embedding), entry.embedding[:4])',
    'print(result.usage)',
  ];
  return redactKeys(lines.join('\n'));
}
