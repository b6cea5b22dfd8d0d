/**
 * The request with the `openai` client for TypeScript and JavaScript; its base URL includes `/v1`.
 * The snippet is plain JavaScript (an ES module), so Node 20 runs it saved as `.mjs`.
 */
import {
  defaultKeyVariable,
  openAiTypeScriptClient,
  redactKeys,
  type CodeExportInput,
} from './shared';

export function generateOpenAiTypeScript(input: CodeExportInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const body = JSON.stringify(input.request, null, 2);
  const header = openAiTypeScriptClient(input.gatewayBaseUrl, keyVariable);
  const hasTools = (input.request.tools ?? []).length > 0;
  const call = input.request.stream
    ? [
        `const stream = await client.chat.completions.create(${body});`,
        '',
        ...(hasTools
          ? [
              '// Tool calls arrive in pieces: their id and name first, the arguments bit by bit.',
              'const toolCalls = [];',
              'for await (const chunk of stream) {',
              '  const delta = chunk.choices[0]?.delta;',
              "  process.stdout.write(delta?.content ?? '');",
              '  for (const part of delta?.tool_calls ?? []) {',
              "    toolCalls[part.index] ??= { id: part.id, name: '', arguments: '' };",
              "    toolCalls[part.index].name += part.function?.name ?? '';",
              "    toolCalls[part.index].arguments += part.function?.arguments ?? '';",
              '  }',
              '}',
              "process.stdout.write('\\n');",
              'for (const toolCall of toolCalls) {',
              '  console.info(`tool call ${toolCall.id}: ${toolCall.name}(${toolCall.arguments})`);',
              '}',
            ]
          : [
              'for await (const chunk of stream) {',
              "  process.stdout.write(chunk.choices[0]?.delta?.content ?? '');",
              '}',
              "process.stdout.write('\\n');",
            ]),
      ]
    : [
        `const completion = await client.chat.completions.create(${body});`,
        '',
        ...(hasTools
          ? [
              'const message = completion.choices[0]?.message;',
              "console.info(message?.content ?? '');",
              'for (const toolCall of message?.tool_calls ?? []) {',
              '  console.info(`tool call ${toolCall.id}: ${toolCall.function.name}(${toolCall.function.arguments})`);',
              '}',
            ]
          : ['console.info(completion.choices[0]?.message);']),
        'console.info(completion.usage);',
      ];
  return redactKeys([...header, ...call].join('\n'));
}
