/**
 * Sends the outbox: leases due deliveries (one instance each), posts them signed, and records
 * each try. At least once: a delivery leaves the outbox only on a 2xx within the timeout, or as
 * failed after 24 hours of retries with exponential backoff and jitter. A lease outlives a try
 * (3× its timeout), so a SIGKILLed instance's deliveries are taken up again by whoever polls next.
 *
 * Each connection goes only to addresses checked just before it (no DNS rebinding between the
 * check and the connect), follows no redirect, reads at most 4 KB of the answer and sends no
 * header of the gateway's own.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Logger } from 'pino';
import {
  AddressRefused,
  checkedAddresses,
  pinnedLookup,
  type Resolve,
} from '../shared/public-address';
import type { GatewayStore } from '../store/store';
import type { AttemptResult, DeliveryRow } from '../store/webhooks';
import { signedHeaders, type SecretSeal } from './signing';

export type WebhookSenderOptions = {
  store: GatewayStore;
  seal: SecretSeal;
  resolve: Resolve;
  allowPrivate: boolean;
  /** This instance, as the owner of its leases. */
  instanceId: string;
  logger: Logger;
  /** The first retry's delay; each later one doubles, up to an hour. */
  retryBaseMs: number;
  /** Failed tries in a row that stop an endpoint. */
  failureLimit: number;
  /** A 2xx within this counts as delivered. */
  timeoutMs: number;
  /** How often to look for due deliveries; null: only when woken (the command line). */
  pollMs: number | null;
};

/** Retries stop, and the delivery is failed, this long after the event. */
export const RETRY_FOR_MS = 24 * 3_600_000;
const MAX_DELAY_MS = 3_600_000;
const MAX_IN_FLIGHT = 16;
/** Per account, so one account's slow receiver cannot hold up the others'. */
const MAX_IN_FLIGHT_PER_ACCOUNT = 2;
const ANSWER_BYTES = 4_096;
const USER_AGENT = 'model-gateway-webhooks/1';

/** The delay before try `attempt + 1`, after `attempt` tries failed: doubling, ±20%. */
export function retryDelayMs(retryBaseMs: number, attempts: number, random = Math.random): number {
  const delay = Math.min(retryBaseMs * 2 ** Math.max(attempts - 1, 0), MAX_DELAY_MS);
  return Math.round(delay * (0.8 + 0.4 * random()));
}

export class WebhookSender {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perAccount = new Map<string, number>();

  constructor(private readonly options: WebhookSenderOptions) {}

  start(): void {
    if (this.options.pollMs === null) return;
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Looks for due deliveries now (after a change enqueued some). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.tick()
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'webhook poll failed'))
      .finally(() => {
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Sends one delivery now, whether due or not, and waits for the try. */
  async sendNow(id: string): Promise<void> {
    const now = Date.now();
    const row = await this.options.store.webhooks.claimOne(
      id,
      this.options.instanceId,
      now,
      now + this.leaseMs,
    );
    if (row) await this.send(row);
  }

  /** Stops polling, and waits for the tries under way (each ends within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private get leaseMs() {
    return this.options.timeoutMs * 3;
  }

  private async tick(): Promise<void> {
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0) return;
    const now = Date.now();
    const claimed = await this.options.store.webhooks.claimDue(
      this.options.instanceId,
      now,
      now + this.leaseMs,
      room,
    );
    for (const row of claimed) {
      const busy = this.perAccount.get(row.accountId) ?? 0;
      if (busy >= MAX_IN_FLIGHT_PER_ACCOUNT) {
        await this.options.store.webhooks.release(row.id, this.options.instanceId);
        continue;
      }
      this.perAccount.set(row.accountId, busy + 1);
      const sending = this.send(row).finally(() => {
        this.inFlight.delete(row.id);
        const left = (this.perAccount.get(row.accountId) ?? 1) - 1;
        if (left > 0) this.perAccount.set(row.accountId, left);
        else this.perAccount.delete(row.accountId);
      });
      this.inFlight.set(row.id, sending);
    }
  }

  private async send(row: DeliveryRow): Promise<void> {
    const { store, logger } = this.options;
    const webhook = await store.webhooks.get(row.webhookId);
    if (!webhook) return;
    const started = Date.now();
    let outcome: { responseStatus: number | null; error: string | null };
    try {
      const secret = this.options.seal.open(webhook.secretSealed);
      const headers = signedHeaders(secret, row.id, Math.floor(started / 1000), row.payload);
      outcome = await this.post(new URL(webhook.url), row.payload, headers);
    } catch (error) {
      outcome = { responseStatus: null, error: (error as Error).message };
    }
    const attemptMs = Date.now();
    const delivered = outcome.error === null;
    const attempts = row.attempts + 1;
    const nextAttemptMs = attemptMs + retryDelayMs(this.options.retryBaseMs, attempts);
    const gaveUp = !delivered && nextAttemptMs - row.createdMs > RETRY_FOR_MS;
    const result: AttemptResult = {
      status: delivered ? 'delivered' : gaveUp ? 'failed' : 'pending',
      responseStatus: outcome.responseStatus,
      latencyMs: attemptMs - started,
      error: gaveUp ? `${outcome.error} Gave up after 24 hours of retries.` : outcome.error,
      attemptMs,
      nextAttemptMs: delivered || gaveUp ? null : nextAttemptMs,
    };
    const recorded = await store.webhooks.recordAttempt(
      row.id,
      this.options.instanceId,
      result,
      this.options.failureLimit,
    );
    if (!delivered) {
      logger.warn(
        { webhook: webhook.id, delivery: row.id, attempts, host: new URL(webhook.url).host },
        `webhook delivery failed: ${outcome.error}`,
      );
    }
    if (!recorded)
      logger.warn(
        { delivery: row.id },
        'webhook delivery lease was lost before its try was recorded',
      );
  }

  /** One POST; a 2xx within the timeout is success, anything else says what went wrong. */
  private async post(
    url: URL,
    body: string,
    signed: Record<string, string>,
  ): Promise<{ responseStatus: number | null; error: string | null }> {
    let addresses: string[];
    try {
      addresses = await checkedAddresses(
        url.hostname,
        this.options.resolve,
        this.options.allowPrivate,
      );
    } catch (error) {
      if (error instanceof AddressRefused) return { responseStatus: null, error: error.message };
      throw error;
    }
    if (url.protocol !== 'https:' && !this.options.allowPrivate) {
      return { responseStatus: null, error: 'Only https URLs are sent to.' };
    }
    const client = url.protocol === 'https:' ? https : http;
    const timeoutMs = this.options.timeoutMs;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: { responseStatus: number | null; error: string | null }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        resolve(result);
      };
      const request = client.request({
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        servername: net.isIP(url.hostname) ? undefined : url.hostname,
        agent: false,
        // Only the addresses just checked: a name that resolves differently now is not asked again.
        lookup: pinnedLookup(addresses),
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'content-length': String(Buffer.byteLength(body)),
          ...signed,
        },
      });
      const timer = setTimeout(
        () => finish({ responseStatus: null, error: `No answer within ${timeoutMs} ms.` }),
        timeoutMs,
      );
      request.on('error', (error) =>
        finish({ responseStatus: null, error: `The connection failed: ${error.message}` }),
      );
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        const done = () => {
          if (status >= 200 && status < 300) finish({ responseStatus: status, error: null });
          else if (status >= 300 && status < 400) {
            finish({
              responseStatus: status,
              error: `The receiver answered HTTP ${status} (a redirect, which is not followed).`,
            });
          } else finish({ responseStatus: status, error: `The receiver answered HTTP ${status}.` });
        };
        // Only a little of the answer is read; the status is what counts.
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= ANSWER_BYTES) done();
        });
        response.on('end', done);
        response.on('error', done);
      });
      request.end(body);
    });
  }
}
