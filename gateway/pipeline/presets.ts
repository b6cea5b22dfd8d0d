/**
 * A preset (`@preset/<slug>`) applied to a request: its model, fallbacks and provider preferences
 * where the request gives none of its own, its system prompt before the request's, and its default
 * parameters where the request leaves them unset. The request's own fields always win.
 */
import { PRESET_PREFIX } from '../../contract/routing';
import type { RoutingNames } from '../catalog/routing-names';
import type { CanonicalRequest } from '../canonical/model';
import { GatewayError } from '../errors';
import { readProviderPreferences } from './provider-preferences';

export function applyPreset(
  request: CanonicalRequest,
  names: RoutingNames | undefined,
): CanonicalRequest {
  if (!request.model.startsWith(PRESET_PREFIX)) return request;
  const preset = names?.preset(request.model);
  if (!preset) {
    throw new GatewayError({
      status: 404,
      type: 'model_not_found',
      stage: 'validation',
      message: `The preset '${request.model.slice(0, 200)}' is not defined. GET /v1/models lists the presets.`,
    });
  }
  const stored = readProviderPreferences(preset.provider);
  const asked = request.routing;
  const parameters = preset.parameters ?? {};
  const changed: Partial<CanonicalRequest> = {
    ...(preset.system !== undefined && {
      system: request.system ? `${preset.system}\n\n${request.system}` : preset.system,
      ...(request.systemBlocks && {
        systemBlocks: [{ text: preset.system }, ...request.systemBlocks],
      }),
    }),
    ...(request.temperature === null &&
      parameters.temperature !== undefined && { temperature: parameters.temperature }),
    ...(request.topP === null && parameters.top_p !== undefined && { topP: parameters.top_p }),
    ...(request.maxTokens === null &&
      parameters.max_tokens !== undefined && { maxTokens: parameters.max_tokens }),
    ...(request.seed === null && parameters.seed !== undefined && { seed: parameters.seed }),
    ...(request.stop.length === 0 && parameters.stop !== undefined && { stop: parameters.stop }),
  };
  const rebuilt = Object.keys(changed).length > 0;
  return {
    ...request,
    ...changed,
    model: preset.model,
    routing: {
      provider: { ...stored.provider, ...asked?.provider },
      models: asked?.models.length ? asked.models : (preset.models ?? []),
      dropped: [...new Set([...stored.dropped, ...(asked?.dropped ?? [])])],
      preset: preset.id,
    },
    ...((stored.requireParameters || request.requireParameters) && { requireParameters: true }),
    // What the preset changed lives in the canonical request only: no upstream gets the body as
    // the client sent it, or the system prompt and defaults would be lost.
    ...(rebuilt && request.inbound && { inbound: { ...request.inbound, rebuilt: true } }),
  };
}
