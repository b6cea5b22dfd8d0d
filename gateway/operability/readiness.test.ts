import { randomBytes } from 'node:crypto';
import { KEY_PREFIX } from '../../contract/key-pattern';
import { checkReadiness, loggableMessage, reasonOf } from './readiness';

const answers = async () => undefined;
const hangs = () => new Promise<void>(() => undefined);

describe('checkReadiness', () => {
  it('is ready when every check answers', async () => {
    const report = await checkReadiness([
      { name: 'store', ping: answers },
      { name: 'redis', ping: answers },
    ]);
    expect(report.ready).toBe(true);
    expect(report.checks).toEqual([
      { name: 'store', status: 'ok' },
      { name: 'redis', status: 'ok' },
    ]);
  });

  it('names the check that failed, with a code but never the message', async () => {
    const secret = `postgres://gateway:${crypto.randomUUID()}@db.internal:5432/gateway`;
    const report = await checkReadiness([
      { name: 'store', ping: answers },
      {
        name: 'redis',
        ping: async () => {
          throw Object.assign(new Error(`cannot reach ${secret}`), { code: 'ECONNREFUSED' });
        },
      },
    ]);
    expect(report.ready).toBe(false);
    expect(report.checks).toEqual([
      { name: 'store', status: 'ok' },
      { name: 'redis', status: 'failed', reason: 'failed (ECONNREFUSED)' },
    ]);
    expect(JSON.stringify(report.checks)).not.toContain(secret);
    expect(report.errors.map((failure) => failure.name)).toEqual(['redis']);
  });

  it('gives up on a check that hangs after the deadline, not later', async () => {
    const began = performance.now();
    const report = await checkReadiness([{ name: 'store', ping: hangs }], 50);
    expect(performance.now() - began).toBeLessThan(1_000);
    expect(report.checks).toEqual([
      { name: 'store', status: 'failed', reason: 'no answer within 50 ms' },
    ]);
  });

  it('counts a check that throws at once as failed', async () => {
    const report = await checkReadiness([
      {
        name: 'store',
        ping: () => {
          throw new Error('closed');
        },
      },
    ]);
    expect(report.checks).toEqual([{ name: 'store', status: 'failed', reason: 'failed' }]);
  });
});

describe('reasonOf', () => {
  it('shows only a bare code', () => {
    expect(reasonOf(Object.assign(new Error('x'), { code: '57P01' }))).toBe('failed (57P01)');
    const keyLike = `${KEY_PREFIX}${randomBytes(20).toString('hex')}`;
    expect(reasonOf(Object.assign(new Error('x'), { code: keyLike }))).toBe('failed');
    expect(reasonOf('a string')).toBe('failed');
    expect(reasonOf(null)).toBe('failed');
  });
});

describe('loggableMessage', () => {
  it('takes the user and password out of URLs', () => {
    expect(
      loggableMessage(new Error('no route to redis://:pw@cache:6379 or postgres://u:p@db/x')),
    ).toBe('no route to redis://[redacted]@cache:6379 or postgres://[redacted]@db/x');
  });
});
