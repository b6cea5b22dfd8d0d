import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../testing/gateway-bundle';

const dist = path.join(repositoryRoot, 'dist');

describe('worker entries in the compiled bundle', () => {
  it('has each worker entry the bundles start, beside them under its base name', () => {
    const started = new Set<string>();
    for (const bundle of ['gateway.js', 'embedded-gateway.js', 'start.js']) {
      const text = fs.readFileSync(path.join(dist, bundle), 'utf8');
      for (const [, name] of text.matchAll(
        /startModuleWorker\(\s*new URL\(\s*["']\.\/([\w-]+)\.ts["'],\s*import\.meta\.url\)/g,
      )) {
        started.add(name!);
      }
    }
    // The pattern still finds what the sources start (else the check below would prove nothing).
    expect([...started].sort()).toEqual([
      'checkpoint-worker-entry',
      'generation-writer-worker',
      'parse-worker',
    ]);
    for (const name of started)
      expect(fs.existsSync(path.join(dist, `${name}.js`)), name).toBe(true);
  });
});
