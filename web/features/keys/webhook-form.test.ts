import { checkWebhookForm, emptyWebhookForm, type WebhookFormValues } from './webhook-form';

const form = (values: Partial<WebhookFormValues>): WebhookFormValues => ({
  ...emptyWebhookForm,
  url: 'https://hooks.example.com/a',
  ...values,
});

describe('the Add endpoint form', () => {
  it('sends only what was typed: the gateway fills in its defaults', () => {
    expect(checkWebhookForm(form({}))).toEqual({
      ok: true,
      value: {
        url: 'https://hooks.example.com/a',
        events: ['key.balance_low', 'key.depleted', 'key.expiring_soon', 'key.expired'],
      },
    });
  });

  it('reads a USD threshold as typed, and days as seconds', () => {
    const checked = checkWebhookForm(form({ threshold: '$2.50', expiringSoonDays: '30' }));
    expect(checked).toMatchObject({
      ok: true,
      value: { balance_low_usd: 2.5, expiring_soon_seconds: 30 * 86_400 },
    });
  });

  it.each([
    [{ url: 'hooks.example.com' }, 'url', /https:\/\//],
    [{ events: [] }, 'events', /at least one/],
    [{ thresholdUnit: 'percent', threshold: '100' } as const, 'threshold', /below 100/],
    [{ thresholdUnit: 'percent', threshold: '0' } as const, 'threshold', /above 0/],
    [{ threshold: '-1' }, 'threshold', /0 or more/],
    [{ expiringSoonDays: '31' }, 'expiringSoonDays', /1 to 30/],
    [{ expiringSoonDays: '1.5' }, 'expiringSoonDays', /whole number/],
  ])('refuses %o at its field', (values, field, message) => {
    const checked = checkWebhookForm(form(values));
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.errors[field as keyof typeof checked.errors]).toMatch(message);
  });
});
