/**
 * The Add endpoint form of a notification endpoint: what a person types, checked before anything
 * is sent, with one message per field saying what to write instead. The gateway checks again.
 */
import {
  webhookEventTypes,
  webhookLimits,
  type Webhook,
  type WebhookChange,
  type WebhookCreate,
  type WebhookEventType,
} from '../../../contract/webhooks';
import { formatUsd } from '../../lib/format';
import { parseUsdInput } from './child-key-form';

/** Ticked at first: the events about money and time running out. */
export const defaultWebhookEvents: WebhookEventType[] = [
  'key.balance_low',
  'key.depleted',
  'key.expiring_soon',
  'key.expired',
];

/** Each event in words, in the order the gateway lists them. */
export const webhookEventLabels: Record<WebhookEventType, string> = {
  'key.balance_low': 'Balance low',
  'key.depleted': 'Balance used up',
  'key.expiring_soon': 'Expiring soon',
  'key.expired': 'Expired',
  'key.created': 'Key created',
  'key.disabled': 'Key disabled',
  'key.enabled': 'Key enabled',
  'key.revoked': 'Key revoked',
  'key.rotated': 'Key rotated',
  'key.limit_changed': 'Limit changed',
  'key.period_reset': 'Budget period renewed',
  'batch.completed': 'Batch completed',
  'batch.failed': 'Batch failed',
};

export const allWebhookEvents = webhookEventTypes;

export interface WebhookFormValues {
  url: string;
  events: WebhookEventType[];
  thresholdUnit: 'usd' | 'percent';
  /** Empty: the gateway's own threshold. */
  threshold: string;
  /** Empty: the gateway's default (3 days). */
  expiringSoonDays: string;
}

export type WebhookFormErrors = Partial<
  Record<'url' | 'events' | 'threshold' | 'expiringSoonDays', string>
>;

export const emptyWebhookForm: WebhookFormValues = {
  url: '',
  events: defaultWebhookEvents,
  thresholdUnit: 'usd',
  threshold: '',
  expiringSoonDays: '',
};

const maxDays = webhookLimits.expiringSoonSeconds / 86_400;

export function checkWebhookForm(
  values: WebhookFormValues,
): { ok: true; value: WebhookCreate } | { ok: false; errors: WebhookFormErrors } {
  const errors: WebhookFormErrors = {};
  const value: WebhookCreate = { url: values.url.trim(), events: values.events };
  if (!/^https?:\/\/\S+$/i.test(value.url)) {
    errors.url = 'Enter the full address of your receiver, beginning with https://.';
  } else if (value.url.length > webhookLimits.urlLength) {
    errors.url = `At most ${webhookLimits.urlLength} characters.`;
  }
  if (values.events.length === 0) errors.events = 'Tick at least one event.';
  const threshold = values.threshold.trim();
  if (threshold !== '' && values.thresholdUnit === 'usd') {
    const parsed = parseUsdInput(threshold);
    if ('error' in parsed) errors.threshold = parsed.error;
    else if (parsed.value !== null) value.balance_low_usd = parsed.value;
  } else if (threshold !== '') {
    const percent = Number(threshold.replace(/%\s*$/, ''));
    if (!Number.isFinite(percent) || percent <= 0 || percent >= 100) {
      errors.threshold = 'Enter a percentage above 0 and below 100, e.g. 10.';
    } else value.balance_low_percent = percent;
  }
  const days = values.expiringSoonDays.trim();
  if (days !== '') {
    const count = Number(days);
    if (!Number.isInteger(count) || count < 1 || count > maxDays) {
      errors.expiringSoonDays = `Enter a whole number of days from 1 to ${maxDays}.`;
    } else value.expiring_soon_seconds = count * 86_400;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

/** An endpoint's settings as the form shows them, to edit in place (the URL stays). */
export function webhookFormOf(webhook: Webhook): WebhookFormValues {
  const percent = webhook.balance_low_percent;
  return {
    url: webhook.url,
    events: webhook.events,
    thresholdUnit: percent !== null ? 'percent' : 'usd',
    threshold:
      percent !== null
        ? String(percent)
        : webhook.balance_low_usd !== null
          ? String(webhook.balance_low_usd)
          : '',
    expiringSoonDays: String(Math.round(webhook.expiring_soon_seconds / 86_400)),
  };
}

/**
 * The change that makes an endpoint match the checked form: every setting said, the one
 * threshold unit not chosen cleared; the secret is not touched.
 */
export function webhookChangeOf(value: WebhookCreate): WebhookChange {
  return {
    events: value.events,
    balance_low_usd: value.balance_low_usd ?? null,
    balance_low_percent: value.balance_low_percent ?? null,
    expiring_soon_seconds: value.expiring_soon_seconds ?? null,
  };
}

/** When Balance low fires, in words: "below $1.00 remaining", "below 10% of the limit". */
export function describeThreshold(webhook: Webhook): string {
  if (webhook.balance_low_percent !== null) {
    return `below ${webhook.balance_low_percent}% of the limit remaining`;
  }
  if (webhook.balance_low_usd !== null)
    return `below ${formatUsd(webhook.balance_low_usd)} remaining`;
  return 'at the gateway’s default threshold';
}
