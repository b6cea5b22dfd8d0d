/** The request with the `openai` Python client; its base URL includes `/v1`. */
import {
  defaultKeyVariable,
  openAiPythonClient,
  pythonArguments,
  redactKeys,
  type CodeExportInput,
} from './shared';

export function generateOpenAiPython(input: CodeExportInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const argumentsText = pythonArguments(input.request);
  const lines = openAiPythonClient(input.gatewayBaseUrl, keyVariable);
  const hasTools = (input.request.tools ?? []).length > 0;
  if (input.request.stream && hasTools) {
    lines.push(
      `stream = client.chat.completions.create(\n${argumentsText}\n)`,
      '',
      '# Tool calls arrive in pieces: their id and name first, the arguments bit by bit.',
      'tool_calls = {}',
      'for chunk in stream:',
      '    if not chunk.choices:',
      '        continue',
      '    delta = chunk.choices[0].delta',
      '    if delta.content:',
      '        print(delta.content, end="", flush=True)',
      '    for part in delta.tool_calls or []:',
      '        call = tool_calls.setdefault(part.index, {"id": part.id, "name": "", "arguments": ""})',
      '        if part.function and part.function.name:',
      '            call["name"] += part.function.name',
      '        if part.function and part.function.arguments:',
      '            call["arguments"] += part.function.arguments',
      'print()',
      'for call in tool_calls.values():',
      "    print(f\"tool call {call['id']}: {call['name']}({call['arguments']})\")",
    );
  } else if (input.request.stream) {
    lines.push(
      `stream = client.chat.completions.create(\n${argumentsText}\n)`,
      '',
      'for chunk in stream:',
      '    if chunk.choices and chunk.choices[0].delta.content:',
      '        print(chunk.choices[0].delta.content, end="", flush=True)',
      'print()',
    );
  } else if (hasTools) {
    lines.push(
      `completion = client.chat.completions.create(\n${argumentsText}\n)`,
      '',
      'message = completion.choices[0].message',
      'print(message.content or "")',
      'for call in message.tool_calls or []:',
      '    print(f"tool call {call.id}: {call.function.name}({call.function.arguments})")',
      'print(completion.usage)',
    );
  } else {
    lines.push(
      `completion = client.chat.completions.create(\n${argumentsText}\n)`,
      '',
      'print(completion.choices[0].message)',
      'print(completion.usage)',
    );
  }
  return redactKeys(lines.join('\n'));
}
