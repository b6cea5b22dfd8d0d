/** The request as a `curl` command against the gateway's chat-completion route. */
import { defaultKeyVariable, openAiBaseUrl, redactKeys, type CodeExportInput } from './shared';

export function generateCurl(input: CodeExportInput): string {
  const keyVariable = input.keyVariable ?? defaultKeyVariable;
  const streamed = input.request.stream === true;
  // A quoted here-document passes the JSON verbatim: no shell quoting of the messages needed.
  const lines = [
    `curl${streamed ? ' -N' : ''} ${openAiBaseUrl(input.gatewayBaseUrl)}/chat/completions \\`,
    `  -H "Authorization: Bearer $${keyVariable}" \\`,
    '  -H "Content-Type: application/json" \\',
    "  -d @- <<'JSON'",
    JSON.stringify(input.request, null, 2),
    'JSON',
  ];
  return redactKeys(lines.join('\n'));
}
