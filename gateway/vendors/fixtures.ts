/**
 * Each vendor's recorded fixtures live once, in `vendors/<vendor>/__fixtures__/`: the form
 * tests, the provider tests, the fake upstreams and the agent CLI tests all read them from here.
 * Names are `<vendor>-<case>.json`, streams `.chunks.txt`, clients' requests `<client>-requests.json`.
 */
import fs from 'node:fs';
import path from 'node:path';

export type Vendor = 'anthropic' | 'gemini' | 'openai';

export const vendorFixturePath = (vendor: Vendor, name: string): string =>
  path.join(import.meta.dirname, vendor, '__fixtures__', name);

export const vendorFixtureText = (vendor: Vendor, name: string): string =>
  fs.readFileSync(vendorFixturePath(vendor, name), 'utf8');
