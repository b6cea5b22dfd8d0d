/**
 * Key events and webhooks as a part: the outbox sender, the events raised from key changes,
 * settlement and batches, and the admin API's webhook endpoints. Closed before the settlement
 * loop's last pass: what that pass raises stays in the outbox for the next start to send.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { CalendarClock } from '../keys/calendar-clock';
import type { Assembled } from '../shared/assembly';
import { systemResolve, type Resolve } from '../shared/public-address';
import type { GatewayStore } from '../store/store';
import { KeyEvents } from './key-events';
import { secretSeal } from './signing';
import { WebhookAdmin } from './webhook-admin';
import { WebhookSender } from './webhook-sender';

export type EventsPart = {
  keyEvents: KeyEvents;
  webhooks: WebhookAdmin;
  /** Sends what the outbox holds now (a change has just written to it). */
  wake(): void;
  /** Looks for balance and expiry crossings now; one sweep at a time. */
  sweep(): Promise<number>;
};

export function createEvents(
  config: GatewayConfig,
  deps: {
    store: GatewayStore;
    /** Webhook secrets are sealed under the keys' pepper. */
    pepper: string;
    clock: CalendarClock;
    /** Each settlement pass is followed by a sweep. */
    afterSettlement(listener: () => void): void;
    instanceId: string;
    logger: Logger;
    /** How webhook target names are resolved (tests pass a stub: no name leaves loopback). */
    resolve?: Resolve;
  },
): Assembled<EventsPart> {
  const { store, logger } = deps;
  const seal = secretSeal(deps.pepper);
  const resolve = deps.resolve ?? systemResolve;
  const { allowPrivate, retryBaseMs, failureLimit, deliveryTimeoutMs } = config.webhooks;
  const sender = new WebhookSender({
    store,
    seal,
    resolve,
    allowPrivate,
    instanceId: deps.instanceId,
    logger,
    retryBaseMs,
    failureLimit,
    timeoutMs: deliveryTimeoutMs,
    pollMs: Math.min(1_000, retryBaseMs),
  });
  // Expiry events follow the same calendar as the expiry itself.
  const keyEvents = new KeyEvents(store, () => deps.clock.nowSeconds());
  const webhooks = new WebhookAdmin({ store, seal, resolve, allowPrivate, sender });
  let closed = false;
  let sweeping: Promise<number> | null = null;
  const sweep = () =>
    closed
      ? Promise.resolve(0)
      : (sweeping ??= keyEvents
          .sweep()
          .then((sent) => {
            if (sent > 0) sender.wake();
            return sent;
          })
          .catch((error: unknown) => {
            logger.error({ err: error }, 'key events sweep failed; the next pass retries');
            return 0;
          })
          .finally(() => (sweeping = null)));
  deps.afterSettlement(() => void sweep());
  sender.start();
  return {
    part: { keyEvents, webhooks, wake: () => sender.wake(), sweep },
    async close() {
      closed = true;
      await sweeping;
      await sender.stop();
    },
  };
}
