/**
 * The gateway's command line against a gateway started with `serve` in its own process on the
 * same database: in-process for what the commands do, as a spawned bundle for what a process shows.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { balanceSchema } from '../../contract/gateway';
import { gatewayArgs, repositoryRoot } from '../../testing/gateway-bundle';
import { runCli } from './run';
import { startGatewayProcess, type GatewayProcess } from '../../testing/gateway-process';
import { chatBody, eventually, getWithKey, postJson } from '../../testing/gateway-support';
import { createTestSchema, postgresAvailable } from '../../testing/upstreams/shared-services';

const execute = promisify(execFile);
const root = repositoryRoot;

let gateway: GatewayProcess;

type Result = { stdout: string; stderr: string; code: number };

/**
 * The command line in this process (`runCli`, what the bundle's entry runs), with its own
 * environment and output; the tests below that need a real process spawn the bundle.
 */
async function cli(
  args: string[],
  options: { db?: boolean; environment?: Record<string, string> } = {},
): Promise<Result> {
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_')),
    ),
    ...options.environment,
  };
  const fullArgs = options.db === false ? args : [...args, '--db', gateway.dbPath];
  let stdout = '';
  let stderr = '';
  // One command at a time, as at a prompt: SQLite's busy wait blocks the thread, so two
  // in one process would wait on each other.
  const ran = commands.then(() =>
    runCli(fullArgs, {
      env,
      out: (text) => (stdout += text),
      err: (text) => (stderr += text),
    }),
  );
  commands = ran.catch(() => undefined);
  const code = await ran;
  return { stdout, stderr, code };
}
let commands: Promise<unknown> = Promise.resolve();

type Issued = { id: string; key: string; kind: string; parent_id: string | null };

/** Runs `keys create|rotate … --json` and checks stdout is exactly one JSON object. */
async function issue(args: string[]): Promise<Issued> {
  const result = await cli([...args, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  const issued = JSON.parse(result.stdout) as Issued;
  expect(Object.keys(issued).sort()).toEqual(['id', 'key', 'kind', 'parent_id']);
  expect(issued.key).toMatch(/^sk-/);
  return issued;
}

const chatStatus = async (key: string) => {
  const response = await postJson(
    `${gateway.baseUrl}/v1/chat/completions`,
    chatBody({ max_tokens: 4 }),
    { key },
  );
  await response.text();
  return response.status;
};

/** Polls (up to one second, the promise of INTERFACES.md) until the gateway answers `status`. */
const reaches = (key: string, status: number) =>
  eventually(async () => ((await chatStatus(key)) === status ? status : undefined), 1_000);

let account: Issued;
let allocated: Issued;
let shared: Issued;

beforeAll(async () => {
  gateway = await startGatewayProcess();
});
afterAll(async () => {
  await gateway?.stop();
});

describe('gateway keys (command line)', () => {
  it('creates each kind with --json, and the running gateway accepts the new keys within a second', async () => {
    account = await issue([
      'keys',
      'create',
      '--kind',
      'account',
      '--limit-usd',
      '3',
      '--grace-usd',
      '0.1',
      '--name',
      'team',
    ]);
    expect(account).toMatchObject({ kind: 'account', parent_id: null });
    [allocated, shared] = await Promise.all([
      issue([
        'keys',
        'create',
        '--kind',
        'allocated_child',
        '--parent',
        account.id,
        '--limit-usd',
        '1',
      ]),
      issue(['keys', 'create', '--kind', 'shared_child', '--parent', account.id]),
    ]);
    expect(allocated).toMatchObject({ kind: 'allocated_child', parent_id: account.id });
    expect(shared).toMatchObject({ kind: 'shared_child', parent_id: account.id });

    for (const issued of [account, allocated, shared])
      expect(await reaches(issued.key, 200)).toBe(200);
    const balance = balanceSchema.parse(
      await (await getWithKey(`${gateway.baseUrl}/v1/balance`, shared.key)).json(),
    );
    expect(balance).toMatchObject({ identity: 'shared_child', limit_usd: 3, grace_usd: 0.1 });
  });

  it('lists and shows keys with --json, never a full key', async () => {
    const [list, show] = await Promise.all([
      cli(['keys', 'list', '--json']),
      cli(['keys', 'show', allocated.id, '--json']),
    ]);
    for (const result of [list, show]) {
      expect(result.code).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
      for (const issued of [account, allocated, shared]) {
        expect(result.stdout).not.toContain(issued.key);
        expect(result.stdout).not.toContain(issued.key.slice(7, -4));
      }
    }
    const listed = JSON.parse(list.stdout) as {
      object: string;
      data: Array<{ id: string; key: string; kind: string; state: string }>;
    };
    expect(listed.object).toBe('list');
    expect(listed.data.map((key) => key.id)).toEqual(
      expect.arrayContaining([account.id, allocated.id, shared.id]),
    );
    const shown = JSON.parse(show.stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({
      id: allocated.id,
      kind: 'allocated_child',
      parent_id: account.id,
      state: 'active',
      limit_usd: 1,
    });
    expect(shown.key).toBe(`${allocated.key.slice(0, 7)}…${allocated.key.slice(-4)}`);
  });

  it('runs through npm run gateway as documented', async () => {
    const environment = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_')),
    );
    const { stdout } = await execute(
      'npm',
      [
        'run',
        '--silent',
        'gateway',
        '--',
        'keys',
        'show',
        account.id,
        '--json',
        '--db',
        gateway.dbPath,
      ],
      {
        cwd: root,
        env: environment,
      },
    );
    expect(JSON.parse(stdout)).toMatchObject({ id: account.id, kind: 'account', name: 'team' });
    expect(stdout).not.toContain(account.key);
  });

  it('disables and enables a key, which the running gateway follows', async () => {
    const disabled = await cli(['keys', 'disable', allocated.id, '--json']);
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout)).toMatchObject({
      id: allocated.id,
      disabled: true,
      state: 'disabled',
    });
    // At once: the very first request after the command exits is refused, no polling.
    expect(await chatStatus(allocated.key)).toBe(402);
    expect(await chatStatus(account.key)).toBe(200);

    expect((await cli(['keys', 'enable', allocated.id])).code).toBe(0);
    expect(await reaches(allocated.key, 200)).toBe(200);
  });

  it('sets limits and expiry', async () => {
    const set = await cli([
      'keys',
      'set',
      account.id,
      '--limit-usd',
      '7.5',
      '--grace-usd',
      '0.2',
      '--json',
    ]);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ limit_usd: 7.5, grace_usd: 0.2 });
    await eventually(async () => {
      const balance = balanceSchema.parse(
        await (await getWithKey(`${gateway.baseUrl}/v1/balance`, account.key)).json(),
      );
      return balance.limit_usd === 7.5 ? balance : undefined;
    }, 1_000);

    expect((await cli(['keys', 'set', account.id, '--expires-at', '1000000'])).code).toBe(0);
    expect(await reaches(account.key, 402)).toBe(402);
    // The allocated child stops with its parent.
    expect(await reaches(allocated.key, 402)).toBe(402);
    expect((await cli(['keys', 'set', account.id, '--expires-at', 'none'])).code).toBe(0);
    expect(await reaches(account.key, 200)).toBe(200);
  });

  it('recharges and credits an account, which the running gateway follows; a child is refused', async () => {
    const before = JSON.parse((await cli(['keys', 'show', account.id, '--json'])).stdout) as {
      limit_usd: number;
      recharge_usd: number;
      credit_usd: number;
    };
    const recharged = await cli([
      'keys',
      'recharge',
      account.id,
      '--amount-usd',
      '2.5',
      '--note',
      'invoice 42',
      '--json',
    ]);
    expect(recharged).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(recharged.stdout)).toMatchObject({
      limit_usd: before.limit_usd + 2.5,
      recharge_usd: before.recharge_usd + 2.5,
      credit_usd: before.credit_usd,
    });
    const credited = await cli([
      'keys',
      'credit',
      account.id,
      '--amount-usd',
      '1',
      '--note',
      'goodwill',
      '--json',
    ]);
    expect(JSON.parse(credited.stdout)).toMatchObject({
      limit_usd: before.limit_usd + 3.5,
      credit_usd: before.credit_usd + 1,
    });
    await eventually(async () => {
      const balance = balanceSchema.parse(
        await (await getWithKey(`${gateway.baseUrl}/v1/balance`, account.key)).json(),
      );
      return balance.limit_usd === before.limit_usd + 3.5 ? balance : undefined;
    }, 1_000);

    const missingNote = await cli(['keys', 'recharge', account.id, '--amount-usd', '1']);
    expect(missingNote.code).not.toBe(0);
    expect(missingNote.stderr).toMatch(/needs --amount-usd N and --note TEXT/);
    const nothing = await cli(['keys', 'credit', account.id, '--amount-usd', '0', '--note', 'x']);
    expect(nothing.code).not.toBe(0);
    expect(nothing.stderr).toMatch(/--amount-usd must be a number of USD above 0/);
    const child = await cli(['keys', 'recharge', shared.id, '--amount-usd', '1', '--note', 'x']);
    expect(child.code).not.toBe(0);
    expect(child.stderr).toMatch(/Only an account key is topped up/);
  });

  it('rotates a key: same id, the old secret stops, the new one works', async () => {
    const rotated = await issue(['keys', 'rotate', shared.id]);
    expect(rotated.id).toBe(shared.id);
    expect(rotated).toMatchObject({ kind: 'shared_child', parent_id: account.id });
    expect(rotated.key).not.toBe(shared.key);
    // At once: the very first request after the command exits is refused, no polling.
    expect(await chatStatus(shared.key)).toBe(401);
    expect(await reaches(rotated.key, 200)).toBe(200);
    shared = rotated;
  });

  it('revokes a key for good', async () => {
    const revoked = await cli(['keys', 'revoke', allocated.id, '--json']);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ state: 'revoked' });
    expect(await chatStatus(allocated.key)).toBe(401);
    const enable = await cli(['keys', 'enable', allocated.id]);
    expect(enable.code).not.toBe(0);
    expect(enable.stderr).toMatch(/revoked/);
  });

  // Independent of each other, so they run side by side.
  it.concurrent.for<[string, string[] | (() => string[]), RegExp]>([
    [
      'an unknown kind',
      ['keys', 'create', '--kind', 'root', '--json'],
      /--kind account, allocated_child or shared_child/,
    ],
    [
      'a child without --parent',
      ['keys', 'create', '--kind', 'allocated_child', '--json'],
      /needs --parent/,
    ],
    [
      'a shared child with --limit-usd',
      () => [
        'keys',
        'create',
        '--kind',
        'shared_child',
        '--parent',
        account.id,
        '--limit-usd',
        '1',
        '--json',
      ],
      /no --limit-usd/,
    ],
    [
      'a bad number',
      ['keys', 'create', '--kind', 'account', '--limit-usd', 'lots', '--json'],
      /--limit-usd must be a number/,
    ],
    [
      'a negative amount',
      ['keys', 'create', '--kind', 'account', '--grace-usd=-1', '--json'],
      /--grace-usd must be a number of USD from 0/,
    ],
    [
      'a bad expiry',
      ['keys', 'create', '--kind', 'account', '--expires-at', 'tomorrow', '--json'],
      /--expires-at must be Unix seconds/,
    ],
    [
      'an unknown id to show',
      ['keys', 'show', 'key_doesnotexist', '--json'],
      /No key with id key_doesnotexist/,
    ],
    ['an unknown id to rotate', ['keys', 'rotate', 'key_doesnotexist', '--json'], /No key with id/],
    ['an unknown id to disable', ['keys', 'disable', 'key_doesnotexist'], /No key with id/],
    [
      'a parent that is a child',
      () => ['keys', 'create', '--kind', 'shared_child', '--parent', shared.id, '--json'],
      /parent must be an account key/,
    ],
    ['an unknown flag', ['keys', 'list', '--colour'], /Unknown option/],
    ['an unknown command', ['keys', 'explode'], /Unknown keys command 'explode'/],
    ['no command at all', [], /No command given/],
  ])(
    'fails on %s: non-zero exit, a message on stderr, nothing on stdout',
    async ([, args, message], { expect }) => {
      const result = await cli(typeof args === 'function' ? args() : args);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
    },
  );

  it('fails naming the variable when the environment is bad', async () => {
    const environment = { ...process.env, GATEWAY_SETTLE_INTERVAL_MS: '50' };
    const failed = await execute(
      process.execPath,
      gatewayArgs(['keys', 'list', '--db', gateway.dbPath]),
      {
        cwd: root,
        env: environment,
      },
    ).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect('code' in failed && failed.code).not.toBe(0);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/GATEWAY_SETTLE_INTERVAL_MS/);
  });
});

describe.skipIf(!(await postgresAvailable('the --database-url test')))(
  'gateway keys --database-url (command line)',
  () => {
    it('works like GATEWAY_DATABASE_URL, and wins over --db as the variable wins over GATEWAY_DB', async () => {
      const schema = await createTestSchema('cli_database_url');
      const pepper = { GATEWAY_KEY_PEPPER: crypto.randomBytes(24).toString('base64url') };
      const shared = await startGatewayProcess({
        environment: { GATEWAY_DATABASE_URL: schema.url, ...pepper },
      });
      // A SQLite file the flag must leave alone.
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-cli-'));
      const sqlite = ['--db', path.join(folder, 'gateway.db')];
      try {
        // The flag alone: no GATEWAY_DATABASE_URL in the environment.
        const created = await cli(
          ['keys', 'create', '--kind', 'account', '--limit-usd', '1', '--json', ...sqlite].concat([
            '--database-url',
            schema.url,
          ]),
          { db: false, environment: pepper },
        );
        expect(created.stderr).toBe('');
        expect(created.code).toBe(0);
        const issued = JSON.parse(created.stdout) as Issued;
        // The gateway on that database accepts it.
        const response = await postJson(
          `${shared.baseUrl}/v1/chat/completions`,
          chatBody({ max_tokens: 4 }),
          { key: issued.key },
        );
        await response.text();
        expect(response.status).toBe(200);
        const ids = (result: Result) =>
          (JSON.parse(result.stdout) as { data: Array<{ id: string }> }).data.map((key) => key.id);
        const flagged = await cli(
          ['keys', 'list', '--json', '--database-url', schema.url, ...sqlite],
          { db: false, environment: pepper },
        );
        const variable = await cli(['keys', 'list', '--json', ...sqlite], {
          db: false,
          environment: { ...pepper, GATEWAY_DATABASE_URL: schema.url },
        });
        expect(ids(flagged)).toEqual([issued.id]);
        expect(ids(variable)).toEqual([issued.id]);
        expect(fs.existsSync(path.join(folder, 'gateway.db'))).toBe(false);
      } finally {
        await shared.stop();
        await schema.drop();
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  },
);
