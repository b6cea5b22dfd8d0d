/**
 * Provider preferences as the gateway honours them, read from OpenRouter's `provider` object
 * wherever one comes from: a chat or Responses body, the `x-gateway-provider-preferences` header,
 * or a preset. What it does not honour is named for the translation report.
 */
import {
  HONOURED_MAX_PRICES,
  HONOURED_PROVIDER_OPTIONS,
  type ProviderPreferencesBody,
} from '../../contract/routing';
import type { ProviderPreferences } from '../canonical/model';

/** The body's (or header's) `provider` object as the gateway honours it, and what it drops. */
export function readProviderPreferences(body: ProviderPreferencesBody | null | undefined): {
  provider: ProviderPreferences;
  dropped: string[];
  requireParameters: boolean;
} {
  if (!body) return { provider: {}, dropped: [], requireParameters: false };
  const dropped = Object.keys(body)
    .filter((option) => !HONOURED_PROVIDER_OPTIONS.has(option) && body[option] != null)
    .map((option) => `provider.${option}`);
  const maxPrice = body.max_price;
  if (maxPrice) {
    for (const limit of Object.keys(maxPrice))
      if (!HONOURED_MAX_PRICES.has(limit) && maxPrice[limit] != null)
        dropped.push(`provider.max_price.${limit}`);
  }
  const provider: ProviderPreferences = {
    ...(body.order && { order: body.order }),
    ...(body.only && { only: body.only }),
    ...(body.ignore && { ignore: body.ignore }),
    ...(body.allow_fallbacks !== undefined && { allowFallbacks: body.allow_fallbacks }),
    ...(body.sort && { sort: body.sort }),
    ...(maxPrice &&
      (maxPrice.prompt !== undefined || maxPrice.completion !== undefined) && {
        maxPrice: {
          ...(maxPrice.prompt !== undefined && { prompt: maxPrice.prompt }),
          ...(maxPrice.completion !== undefined && { completion: maxPrice.completion }),
        },
      }),
  };
  return { provider, dropped, requireParameters: body.require_parameters === true };
}
