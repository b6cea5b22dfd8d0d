/**
 * A converter's file name says its direction (docs/extending.md): forms convert a public form into
 * the canonical model and back, providers convert the canonical model out to a vendor and back, so
 * a name found in both folders would hide which way its file goes.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';

const gateway = path.dirname(new URL(import.meta.url).pathname);

function fileNames(folder: string): string[] {
  return readdirSync(path.join(gateway, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => entry.name);
}

describe('converter file names', () => {
  const forms = new Set(fileNames('forms'));
  const providers = new Set(fileNames('providers'));

  it('are never shared by a form and a provider, but for the folder index', () => {
    expect(forms.size).toBeGreaterThan(10);
    expect(providers.size).toBeGreaterThan(10);
    const shared = [...forms].filter((name) => providers.has(name)).sort();
    expect(shared).toEqual(['index.ts']);
  });

  it('put canonical on one side of every "-to-" name', () => {
    const converters = [...forms, ...providers].filter((name) => name.includes('-to-'));
    expect(converters.length).toBeGreaterThan(10);
    const sideless = converters.filter((name) => !/(^canonical-to-|-to-canonical[.])/.test(name));
    expect(sideless).toEqual([]);
  });
});
