/**
 * The request in the Responses form (`POST /v1/responses`): curl, and `client.responses.create`
 * with the `openai` clients. The body is the one the BFF sends (`toResponsesRequest`), so the
 * snippet asks exactly what the playground asked.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
import { toResponsesRequest } from '../../../../contract/responses-form';
import {
  defaultKeyVariable,
  openAiBaseUrl,
  openAiPythonClient,
  openAiTypeScriptClient,
  pythonArguments,
  redactKeys,
  type CodeExportInput,
} from './shared';

const bodyOf = (input: CodeExportInput) => toResponsesRequest(input.request).body;

export function generateResponsesCurl(input: CodeExportInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const body = bodyOf(input);
  // A quoted here-document passes the JSON verbatim: no shell quoting of the input needed.
  const lines = [
    `curl${body.stream ? ' -N' : ''} ${openAiBaseUrl(input.gatewayBaseUrl)}/responses \\`,
    `  -H "Authorization: Bearer $${keyVariable}" \\`,
    '  -H "Content-Type: application/json" \\',
    "  -d @- <<'JSON'",
    JSON.stringify(body, null, 2),
    'JSON',
  ];
  return redactKeys(lines.join('\n'));
}

export function generateResponsesTypeScript(input: CodeExportInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const body = bodyOf(input);
  const json = JSON.stringify(body, null, 2);
  const lines = [
    ...openAiTypeScriptClient(input.gatewayBaseUrl, keyVariable),
    ...(body.stream
      ? [
          `const stream = await client.responses.create(${json});`,
          '',
          'for await (const event of stream) {',
          "  if (event.type === 'response.output_text.delta') process.stdout.write(event.delta);",
          "  if (event.type === 'response.completed') console.info('\\n', event.response.usage);",
          "  if (event.type === 'response.failed') console.error('\\n', event.response.error);",
          '}',
        ]
      : [
          `const response = await client.responses.create(${json});`,
          '',
          'console.info(response.output_text);',
          'console.info(response.usage);',
        ]),
  ];
  return redactKeys(lines.join('\n'));
}

export function generateResponsesPython(input: CodeExportInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const body = bodyOf(input);
  const argumentsText = pythonArguments(body);
  const lines = [
    ...openAiPythonClient(input.gatewayBaseUrl, keyVariable),
    ...(body.stream
      ? [
          `stream = client.responses.create(\n${argumentsText}\n)`,
          '',
          'for event in stream:',
          '    if event.type == "response.output_text.delta":',
          '        print(event.delta, end="", flush=True)',
          '    elif event.type == "response.completed":',
          '        print()',
          '        print(event.response.usage)',
          '    elif event.type == "response.failed":',
          '        print()',
          '        print(event.response.error)',
        ]
      : [
          `response = client.responses.create(\n${argumentsText}\n)`,
          '',
          'print(response.output_text)',
          'print(response.usage)',
        ]),
  ];
  return redactKeys(lines.join('\n'));
}
