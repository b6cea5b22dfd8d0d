/** What the detail panel shows besides the known fields: unknown raw fields and a curl request. */
import type { CatalogModel } from '../../../contract/workbench-api';

/** Top-level catalog fields the panel already shows in its own rows. */
const knownTopLevelFields = new Set([
  'id',
  'object',
  'name',
  'created',
  'owned_by',
  'description',
  'context_length',
  'pricing',
  'architecture',
  'supported_parameters',
  // Its `max_completion_tokens` is the Max output row; other parts are listed one by one.
  'top_provider',
  // Shown, with each provider's details, in the panel's Providers section.
  'providers',
]);
const knownNestedFields: Record<string, Set<string>> = {
  pricing: new Set(['prompt', 'completion']),
  architecture: new Set(['input_modalities', 'output_modalities']),
  top_provider: new Set(['max_completion_tokens']),
};

/**
 * Fields of the raw entry the panel has no row for, as dotted paths with their values. The
 * catalog's fields may change from one gateway version to the next, so they are shown rather
 * than dropped.
 */
export function unknownFields(
  raw: Record<string, unknown>,
): Array<{ path: string; value: unknown }> {
  const found: Array<{ path: string; value: unknown }> = [];
  for (const [name, value] of Object.entries(raw)) {
    if (!knownTopLevelFields.has(name)) {
      found.push({ path: name, value });
      continue;
    }
    const nested = knownNestedFields[name];
    if (nested && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [child, childValue] of Object.entries(value)) {
        // A copy of a top-level field (`top_provider.context_length`, as the gateway sends it)
        // is shown in that field's row; it is listed only when it says something else.
        const copiesTopLevel = Object.hasOwn(raw, child) && raw[child] === childValue;
        if (!nested.has(child) && !copiesTopLevel) {
          found.push({ path: `${name}.${child}`, value: childValue });
        }
      }
    }
  }
  return found;
}

/** Single-quotes text for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Where the gateway's chat-completion route is, from the BFF's idea of the gateway's root. */
export function chatCompletionsUrl(gatewayBaseUrl: string | undefined): string {
  const root = (gatewayBaseUrl ?? 'http://127.0.0.1:8787').replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${root}/v1/chat/completions`;
}

/**
 * A ready-to-copy curl request for `model`. The key is always the shell variable
 * `$GATEWAY_API_KEY`: the page never has, and never prints, a real key.
 */
export function buildCurlRequest(model: CatalogModel, gatewayBaseUrl: string | undefined): string {
  const body = JSON.stringify(
    {
      model: model.id,
      messages: [{ role: 'user', content: 'Say hello in five words.' }],
      max_tokens: 32,
    },
    null,
    2,
  );
  return [
    `curl ${shellQuote(chatCompletionsUrl(gatewayBaseUrl))} \\`,
    `  -H "Authorization: Bearer $GATEWAY_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(body)}`,
  ].join('\n');
}
