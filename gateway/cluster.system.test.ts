/**
 * `serve --workers`: a worker that dies is replaced, but one that keeps dying as it starts (here:
 * its database does not answer) is replaced after a pause that grows, not in a tight loop.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEALTHY_AFTER_MS, restartDelayMs } from './cluster';
import { gatewayArgs } from '../testing/gateway-bundle';

const root = path.resolve(import.meta.dirname, '..');

describe('restarting workers', () => {
  it('replaces a worker that ran well at once, and waits longer each time they die at start', () => {
    expect(restartDelayMs(0)).toBe(0);
    expect([1, 2, 3, 4, 5].map(restartDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
    expect(restartDelayMs(6)).toBe(30_000);
    expect(restartDelayMs(40)).toBe(30_000);
    expect(HEALTHY_AFTER_MS).toBeGreaterThan(restartDelayMs(1));
  });

  it('backs off when its workers die as they start', async () => {
    const child = spawn(process.execPath, gatewayArgs(['serve', '--workers', '2', '--port', '0']), {
      cwd: root,
      env: {
        ...Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_')),
        ),
        // Nothing listens there: every worker fails at start, the primary never connects.
        GATEWAY_DATABASE_URL: 'postgres://gateway@127.0.0.1:1/none',
        GATEWAY_KEY_PEPPER: crypto.randomBytes(24).toString('base64url'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const replacements: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      replacements.splice(0, replacements.length, ...(stderr.match(/starting another.*$/gm) ?? []));
    });
    try {
      // Both first workers die at start: the second death already waits 2 s.
      await expect
        .poll(() => replacements.length, { timeout: 30_000, interval: 100 })
        .toBeGreaterThanOrEqual(3);
      // The workers died for the reason given, not another.
      expect(stderr).toContain('ECONNREFUSED');
      expect(replacements.slice(0, 3)).toEqual([
        'starting another in 1s',
        'starting another in 2s',
        'starting another in 4s',
      ]);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 40_000);
});
