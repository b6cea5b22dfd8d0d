/**
 * Readiness: whether this instance's dependencies answer, for a load balancer's `GET /readyz`.
 * Every check runs at once with a short deadline, so a hung database turns the instance unready
 * in about a second instead of hanging the probe. A failure is reported by the check's name and
 * a reason from a fixed vocabulary: a driver's message can hold a connection URL with its
 * password, and the probe needs no key, so it must show nothing of the kind.
 */
import { z } from 'zod';

/** One dependency to ask. Add to `GatewayParts.readiness` (the store is always asked). */
export type ReadinessCheck = {
  /** Short and fixed, e.g. `store`, `redis`. */
  name: string;
  /** Resolves when the dependency answers; rejects (or hangs) when it does not. */
  ping: () => Promise<void>;
};

/** One check's outcome as `GET /readyz` shows it: a reason from a fixed vocabulary, never a message. */
export const checkResultSchema = z.discriminatedUnion('status', [
  z.object({ name: z.string(), status: z.literal('ok') }),
  z.object({ name: z.string(), status: z.literal('failed'), reason: z.string() }),
]);
export type CheckResult = z.infer<typeof checkResultSchema>;

export type ReadinessReport = {
  ready: boolean;
  checks: CheckResult[];
  /** The errors behind the failed checks, for the log only. */
  errors: Array<{ name: string; error: unknown }>;
};

export const READINESS_TIMEOUT_MS = 1_000;

class NoAnswer extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

export async function checkReadiness(
  checks: ReadinessCheck[],
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const errors: ReadinessReport['errors'] = [];
  const results = await Promise.all(
    checks.map(async ({ name, ping }): Promise<CheckResult> => {
      try {
        await withDeadline(ping, timeoutMs);
        return { name, status: 'ok' };
      } catch (error) {
        errors.push({ name, error });
        return { name, status: 'failed', reason: reasonOf(error) };
      }
    }),
  );
  return { ready: results.every((result) => result.status === 'ok'), checks: results, errors };
}

async function withDeadline(ping: () => Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(timeoutMs)), timeoutMs);
    timer.unref();
  });
  try {
    // `ping()` may throw synchronously: inside the async function that is a rejection too.
    await Promise.race([(async () => ping())(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A reason safe to show anyone: a timeout, or the error's code when it is a bare code
 * (`ECONNREFUSED`, a SQLSTATE like `57P01`), never its message.
 */
export function reasonOf(error: unknown): string {
  if (error instanceof NoAnswer) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return `failed (${code})`;
  return 'failed';
}

/**
 * The error's message for the operator's log, with any URL's user and password taken out (the
 * logger already masks keys).
 */
export function loggableMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1[redacted]@').slice(0, 300);
}
