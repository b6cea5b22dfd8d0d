/**
 * The gateway's command line (docs/command-line.md): `serve`, and `keys …` to create, list,
 * show, disable, enable, revoke, set and rotate keys, and to recharge or credit an account. With
 * `--json` a command prints exactly one JSON object on standard output. Errors go to standard
 * error with a non-zero exit status. `runCli` takes its environment and output streams, so tests
 * run it in-process.
 */
import { parseArgs } from 'node:util';
import { loadGatewayConfig } from '../config';
import { createKeyDigester, loadPepper } from '../keys/key-material';
import { KeyAdmin, type KeySummary } from '../keys/key-admin';
import { keyKindSchema, limitResetSchema, type LimitReset } from '../../contract/gateway';
import { isClusterPrimary, superviseWorkers } from '../cluster';
import { startGateway } from '../index';
import { webhookCreateSchema } from '../../contract/webhooks';
import { KeyEvents } from '../events/key-events';
import { secretSeal } from '../events/signing';
import { WebhookAdmin } from '../events/webhook-admin';
import { WebhookSender } from '../events/webhook-sender';
import { createLogger } from '../logger';
import { calendarClock } from '../keys/calendar-clock';
import { parseOrRefuse } from '../routes/route-kit';
import { systemResolve } from '../shared/public-address';
import { openStore } from '../store/open-store';

class UsageError extends Error {}

const usage = `Usage:
  gateway serve [--host H] [--port N] [--db PATH | --database-url URL] [--workers N]
  gateway keys create --kind account [--limit-usd N] [--grace-usd N] [--limit-reset P] [--allowed-models M,M] [--expires-at UNIX_SECONDS] [--name TEXT] [--json]
  gateway keys create --kind allocated_child --parent ID [--limit-usd N] [--grace-usd N] [--limit-reset P] [--allowed-models M,M] [--expires-at UNIX_SECONDS] [--name TEXT] [--json]
  gateway keys create --kind shared_child --parent ID [--allowed-models M,M] [--expires-at UNIX_SECONDS] [--name TEXT] [--json]
  gateway keys list [--json]
  gateway keys show ID [--json]
  gateway keys disable ID | enable ID | revoke ID [--json]
  gateway keys set ID [--limit-usd N] [--grace-usd N] [--limit-reset P] [--allowed-models M,M|all] [--expires-at UNIX_SECONDS|none] [--rpm N|default] [--tpm N|default] [--json]
  gateway keys periods ID [--json]   (past budget periods of a key with --limit-reset)
  gateway keys rotate ID [--json]
  gateway keys recharge ID --amount-usd N --note TEXT [--json]   (money paid into an account)
  gateway keys credit ID --amount-usd N --note TEXT [--json]     (money granted to an account)
  gateway keys webhooks list [--account ID] [--json]
  gateway keys webhooks add --account ID --url URL --events key.balance_low,key.depleted,…
      [--balance-low-usd N | --balance-low-percent N] [--expiring-soon-seconds N]
      [--keys ID,ID] [--description TEXT] [--json]
  gateway keys webhooks remove WEBHOOK_ID
  gateway keys webhooks test WEBHOOK_ID [--json]   (sends a webhook.test event now)
--limit-reset P: none (the limit covers the key's life), daily, weekly or monthly (renews at 00:00 UTC).
--allowed-models M,M: model ids or patterns such as anthropic/* or *:free ('all': every model).
Every command takes --db PATH (default: GATEWAY_DB, else ./data/gateway.db), or
--database-url postgres://… (default: GATEWAY_DATABASE_URL) for the shared PostgreSQL store.`;

const options = {
  host: { type: 'string' },
  port: { type: 'string' },
  db: { type: 'string' },
  kind: { type: 'string' },
  parent: { type: 'string' },
  'limit-usd': { type: 'string' },
  'grace-usd': { type: 'string' },
  'expires-at': { type: 'string' },
  rpm: { type: 'string' },
  'limit-reset': { type: 'string' },
  'allowed-models': { type: 'string' },
  tpm: { type: 'string' },
  'database-url': { type: 'string' },
  workers: { type: 'string' },
  name: { type: 'string' },
  'amount-usd': { type: 'string' },
  note: { type: 'string' },
  account: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  keys: { type: 'string' },
  description: { type: 'string' },
  'balance-low-usd': { type: 'string' },
  'balance-low-percent': { type: 'string' },
  'expiring-soon-seconds': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Flags = ReturnType<
  typeof parseArgs<{ options: typeof options; allowPositionals: true }>
>['values'];

/** Where a command reads its environment and writes its output. */
export type CliIo = {
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
};

/** Runs one command; resolves to its exit status (`serve` resolves once it listens). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    await run(argv, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}\n\n${usage}\n`);
      return 2;
    }
    io.err(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function run(argv: string[], io: CliIo): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values: flags, positionals } = parsed;
  if (flags.help) {
    io.out(`${usage}\n`);
    return;
  }
  // A missing command is an error: the usage goes to standard error, as every error does.
  if (positionals.length === 0) throw new UsageError('No command given.');
  const environment = { ...io.env };
  if (flags.db) environment.GATEWAY_DB = flags.db;
  if (flags['database-url']) environment.GATEWAY_DATABASE_URL = flags['database-url'];
  if (flags.host) environment.GATEWAY_HOST = flags.host;
  if (flags.port) environment.GATEWAY_PORT = flags.port;
  const config = loadGatewayConfig(environment);

  const [command, subcommand, id, ...extra] = positionals;
  if (command === 'serve') {
    if (subcommand) throw new UsageError(`serve takes no argument '${subcommand}'.`);
    const workers = workerCount(flags.workers);
    if (workers > 1 && isClusterPrimary()) {
      if (!config.databaseUrl) {
        throw new UsageError(
          '--workers needs a shared store: set GATEWAY_DATABASE_URL (or --database-url). ' +
            'Processes on one SQLite file would each admit against their own ledger.',
        );
      }
      const supervisor = superviseWorkers(workers);
      const stopAll = () => void supervisor.stop().then(() => process.exit(0));
      process.once('SIGINT', stopAll);
      process.once('SIGTERM', stopAll);
      return;
    }
    const running = await startGateway(config);
    const stop = () => void running.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  if (command !== 'keys') throw new UsageError(`Unknown command '${command}'.`);
  const webhookId = subcommand === 'webhooks' ? extra.shift() : undefined;
  if (extra.length > 0) throw new UsageError(`Unexpected argument '${extra[0]}'.`);

  const store = await openStore(config);
  try {
    const pepper = loadPepper(config.databasePath, config.keyPepper);
    if (subcommand === 'webhooks') {
      // Sends only what it is asked to (a test event); the serving gateway sends the rest.
      const options = { store, seal: secretSeal(pepper), resolve: systemResolve };
      const allowPrivate = config.webhooks.allowPrivate;
      const sender = new WebhookSender({
        ...options,
        allowPrivate,
        instanceId: `cli-${process.pid}`,
        logger: createLogger('silent'),
        retryBaseMs: config.webhooks.retryBaseMs,
        failureLimit: config.webhooks.failureLimit,
        timeoutMs: config.webhooks.deliveryTimeoutMs,
        pollMs: null,
      });
      const webhooks = new WebhookAdmin({ ...options, allowPrivate, sender });
      await runWebhooksCommand(webhooks, id, webhookId, flags, io.out);
      return;
    }
    // Its changes raise key events like any other: the serving gateway sends them.
    const admin = new KeyAdmin(
      store,
      createKeyDigester(pepper),
      undefined,
      new KeyEvents(store).keyChanged,
      calendarClock(config.clockOffsetMs),
    );
    await runKeysCommand(admin, subcommand, id, flags, io.out);
  } finally {
    await store.close();
  }
}

async function runWebhooksCommand(
  webhooks: WebhookAdmin,
  action: string | undefined,
  webhookId: string | undefined,
  flags: Flags,
  out: (text: string) => void,
): Promise<void> {
  const printJson = (value: unknown) => out(`${JSON.stringify(value)}\n`);
  const needId = () => {
    if (!webhookId) {
      throw new UsageError(`keys webhooks ${action} needs a webhook ID (see: keys webhooks list).`);
    }
    return webhookId;
  };
  const list = (text: string | undefined) =>
    text
      ?.split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  switch (action) {
    case 'list': {
      const data = await webhooks.list(flags.account);
      if (flags.json) return printJson({ object: 'list', data });
      if (data.length === 0) return out('No webhook endpoints.\n');
      for (const webhook of data) {
        out(
          `${webhook.id}  ${webhook.status}  account ${webhook.account_id}  ${webhook.url}\n` +
            `  events: ${webhook.events.join(', ')}${webhook.disabled_reason ? `\n  ${webhook.disabled_reason}` : ''}\n`,
        );
      }
      return;
    }
    case 'add': {
      if (!flags.account)
        throw new UsageError('keys webhooks add needs --account ID (an account key).');
      const account = await webhooks.accountKey(flags.account);
      const body = parseOrRefuse(webhookCreateSchema, {
        url: flags.url,
        events: list(flags.events),
        description: flags.description,
        balance_low_usd: money('--balance-low-usd', flags['balance-low-usd']),
        balance_low_percent: money('--balance-low-percent', flags['balance-low-percent']),
        expiring_soon_seconds: money('--expiring-soon-seconds', flags['expiring-soon-seconds']),
        key_ids: list(flags.keys),
      });
      const created = await webhooks.create(account.id, body);
      if (flags.json) return printJson(created);
      out(
        `Added webhook ${created.id} for account ${created.account_id}: ${created.url}\n` +
          `Signing secret (shown once, store it now): ${created.secret}\n`,
      );
      return;
    }
    case 'remove':
      await webhooks.delete(needId());
      return out(`Removed webhook ${webhookId}.\n`);
    case 'test': {
      const delivery = await webhooks.test(needId());
      if (flags.json) return printJson(delivery);
      out(
        delivery.status === 'delivered'
          ? `Delivered ${delivery.id}: HTTP ${delivery.response_status} in ${delivery.latency_ms} ms.\n`
          : `Not delivered yet: ${delivery.error} The gateway retries it.\n`,
      );
      return;
    }
    default:
      throw new UsageError(
        `Unknown keys webhooks command '${action ?? ''}': use list, add, remove or test.`,
      );
  }
}

async function runKeysCommand(
  admin: KeyAdmin,
  subcommand: string | undefined,
  id: string | undefined,
  flags: Flags,
  out: (text: string) => void,
): Promise<void> {
  const printJson = (value: unknown) => out(`${JSON.stringify(value)}\n`);
  const printSummary = (summary: KeySummary, json: boolean) =>
    out(json ? `${JSON.stringify(summary)}\n` : formatSummary(summary));
  const needId = () => {
    if (!id) throw new UsageError(`keys ${subcommand} needs a key ID (see: keys list).`);
    return id;
  };
  switch (subcommand) {
    case 'create': {
      if (id)
        throw new UsageError(`keys create takes no positional argument ('${id}'); use flags.`);
      const kind = keyKindSchema.safeParse(flags.kind);
      if (!kind.success)
        throw new UsageError('keys create needs --kind account, allocated_child or shared_child.');
      const issued = await admin.create({
        kind: kind.data,
        parentId: flags.parent,
        limitUsd: money('--limit-usd', flags['limit-usd']),
        graceUsd: money('--grace-usd', flags['grace-usd']),
        expiresAt: expiry(flags['expires-at']) ?? undefined,
        name: flags.name,
        limitReset: limitReset(flags['limit-reset']),
        allowedModels: modelList(flags['allowed-models']),
      });
      if (flags.json) return printJson(issued);
      out(
        `Created ${issued.kind} key ${issued.id}${issued.parent_id ? ` (parent ${issued.parent_id})` : ''}.\n` +
          `Key (shown once, store it now): ${issued.key}\n`,
      );
      return;
    }
    case 'rotate': {
      const issued = await admin.rotate(needId());
      if (flags.json) return printJson(issued);
      out(
        `Rotated ${issued.id}: the old secret no longer works.\nNew key (shown once): ${issued.key}\n`,
      );
      return;
    }
    case 'list': {
      const keys = await admin.list();
      if (flags.json) return printJson({ object: 'list', data: keys });
      out(formatTable(keys));
      return;
    }
    case 'show':
      return printSummary(await admin.show(needId()), flags.json);
    case 'disable':
      return printSummary(await admin.setDisabled(needId(), true), flags.json);
    case 'enable':
      return printSummary(await admin.setDisabled(needId(), false), flags.json);
    case 'revoke':
      return printSummary(await admin.revoke(needId()), flags.json);
    case 'set': {
      const change = {
        limitUsd: money('--limit-usd', flags['limit-usd']),
        graceUsd: money('--grace-usd', flags['grace-usd']),
        expiresAt: expiry(flags['expires-at']),
        rpmLimit: perMinute('--rpm', flags.rpm),
        tpmLimit: perMinute('--tpm', flags.tpm),
        limitReset: limitReset(flags['limit-reset']),
        allowedModels: modelList(flags['allowed-models']),
      };
      if (Object.values(change).every((value) => value === undefined)) {
        throw new UsageError(
          'keys set needs --limit-usd, --grace-usd, --limit-reset, --allowed-models, --expires-at, --rpm or --tpm.',
        );
      }
      return printSummary(await admin.set(needId(), change), flags.json);
    }
    case 'periods': {
      const periods = await admin.periods(needId(), 100);
      if (flags.json) return printJson({ object: 'list', data: periods });
      if (periods.length === 0) return out('No past periods: the key has not renewed yet.\n');
      for (const period of periods) {
        const [from, to] = [period.started_at, period.ended_at].map((seconds) =>
          new Date(seconds * 1000).toISOString().slice(0, 10),
        );
        out(`${from} to ${to}  spent ${period.consumption_usd} of ${period.limit_usd} USD\n`);
      }
      return;
    }
    case 'recharge':
    case 'credit': {
      const amountUsd = money('--amount-usd', flags['amount-usd']);
      if (amountUsd === undefined || flags.note === undefined)
        throw new UsageError(
          `keys ${subcommand} needs --amount-usd N and --note TEXT (why, for the ledger).`,
        );
      const topped = await admin.topUp(needId(), {
        kind: subcommand,
        amountUsd,
        note: flags.note,
      });
      return printSummary(topped, flags.json);
    }
    default:
      throw new UsageError(
        subcommand ? `Unknown keys command '${subcommand}'.` : 'keys needs a command.',
      );
  }
}

function money(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number))
    throw new UsageError(`${flag} must be a number of USD, got '${value}'.`);
  return number;
}

/** `--workers N`: 1 to 64 processes (default 1). */
function workerCount(value: string | undefined): number {
  if (value === undefined) return 1;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 64)
    throw new UsageError(`--workers must be a whole number from 1 to 64, got '${value}'.`);
  return Number(value);
}

/** A per-minute rate limit: a whole number, or `default` for the gateway's default. */
function perMinute(flag: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d+$/.test(value))
    throw new UsageError(`${flag} must be a whole number per minute or 'default', got '${value}'.`);
  return Number(value);
}

/** `--limit-reset`: one of the periods the key API takes. */
function limitReset(value: string | undefined): LimitReset | undefined {
  if (value === undefined) return undefined;
  const parsed = limitResetSchema.safeParse(value);
  if (!parsed.success)
    throw new UsageError(`--limit-reset must be none, daily, weekly or monthly, got '${value}'.`);
  return parsed.data;
}

/** `--allowed-models a,b*`: a list; `all` or nothing between the commas clears it. */
function modelList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === 'all') return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** `none` clears the expiry; anything else must be Unix seconds. */
function expiry(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  if (!/^\d+$/.test(value))
    throw new UsageError(`--expires-at must be Unix seconds or 'none', got '${value}'.`);
  return Number(value);
}

function formatSummary(summary: KeySummary): string {
  return (
    Object.entries(summary)
      .map(([field, value]) => `${field.padEnd(18)}${value === null ? '-' : String(value)}`)
      .join('\n') + '\n'
  );
}

function formatTable(keys: KeySummary[]): string {
  if (keys.length === 0) return 'No keys yet. Create one with: keys create --kind account\n';
  const rows = [
    ['ID', 'KIND', 'PARENT', 'NAME', 'KEY', 'STATE', 'REMAINING USD', 'EXPIRES'],
    ...keys.map((key) => [
      key.id,
      key.kind,
      key.parent_id ?? '-',
      key.name,
      key.key,
      key.state,
      key.remaining_usd === null ? '-' : key.remaining_usd.toFixed(6),
      key.expires_at === null ? 'never' : new Date(key.expires_at * 1000).toISOString(),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return (
    rows
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
