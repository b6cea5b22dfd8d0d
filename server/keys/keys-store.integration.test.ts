/**
 * The keys store: where it is, atomic owner-only rewrites that keep the file's other profiles,
 * a broken file left alone, and start-up merging its profiles with the configured ones.
 */
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  mkdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  KeysStore,
  KeysStoreError,
  keysStoreLocation,
  openKeysStore,
  writeFileAtomically,
} from './keys-store';
import { fakeKey } from '../test-support/harness';

const folders: string[] = [];
const folder = () => {
  const made = mkdtempSync(path.join(tmpdir(), 'keys-store-'));
  folders.push(made);
  return made;
};
afterAll(() => {
  for (const made of folders) rmSync(made, { recursive: true, force: true });
});
const modeOf = (file: string) => statSync(file).mode & 0o777;
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;

describe('keysStoreLocation', () => {
  it('is WORKBENCH_KEYS_FILE, else the embedded data folder’s own file, else nowhere', () => {
    expect(
      keysStoreLocation({ keysFile: 'keys.json', embedded: true, dataDirectory: '/srv/data' }),
    ).toEqual({ path: path.resolve('keys.json'), origin: 'keys_file' });
    expect(
      keysStoreLocation({ keysFile: null, embedded: true, dataDirectory: '/srv/data' }),
    ).toEqual({ path: '/srv/data/workbench-keys.json', origin: 'embedded' });
    expect(
      keysStoreLocation({ keysFile: null, embedded: false, dataDirectory: '/srv/data' }),
    ).toBeNull();
  });
});

describe('KeysStore', () => {
  it('adds, replaces and removes profiles, keeping the others, in an owner-only file', async () => {
    const file = path.join(folder(), 'keys.json');
    const [first, second, third] = [fakeKey(), fakeKey(), fakeKey()];
    writeFileSync(file, JSON.stringify({ mine: first }), { mode: 0o644 });
    chmodSync(file, 0o644);
    const store = new KeysStore({ path: file, origin: 'keys_file' });
    await store.put('ci', second);
    expect(read(file)).toEqual({ mine: first, ci: second });
    expect(modeOf(file)).toBe(0o600);
    await store.put('ci', third);
    expect(read(file)).toEqual({ mine: first, ci: third });
    expect(await store.remove(['ci', 'never there'])).toEqual(['ci']);
    expect(read(file)).toEqual({ mine: first });
    expect(store.description).toBe(`${file} (WORKBENCH_KEYS_FILE)`);
  });

  it('creates the embedded store and its folder on the first key', async () => {
    const file = path.join(folder(), 'data', 'workbench-keys.json');
    const store = new KeysStore({ path: file, origin: 'embedded' });
    expect(await store.read()).toEqual({});
    const key = fakeKey();
    await store.put('new', key);
    expect(read(file)).toEqual({ new: key });
    expect(modeOf(file)).toBe(0o600);
  });

  it('applies concurrent changes one after another: none is lost', async () => {
    const file = path.join(folder(), 'keys.json');
    const store = new KeysStore({ path: file, origin: 'embedded' });
    const keys = Array.from({ length: 12 }, () => fakeKey());
    await Promise.all(keys.map((key, index) => store.put(`p${index}`, key)));
    expect(Object.keys(read(file))).toHaveLength(12);
    // No temporary file is left behind.
    expect(readdirSync(path.dirname(file))).toEqual(['keys.json']);
  });

  it('refuses to rewrite a file a person broke, naming it, without quoting a key', async () => {
    const file = path.join(folder(), 'keys.json');
    const key = fakeKey();
    const broken = `{"mine": "${key}",`;
    writeFileSync(file, broken);
    const store = new KeysStore({ path: file, origin: 'keys_file' });
    const failure = await store.put('ci', fakeKey()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KeysStoreError);
    expect((failure as Error).message).toContain(file);
    expect((failure as Error).message).toContain('not valid JSON');
    expect((failure as Error).message).not.toContain(key);
    expect(readFileSync(file, 'utf8')).toBe(broken);
  });

  it('follows a symbolic link, so the link stays a link', async () => {
    const dir = folder();
    const target = path.join(dir, 'real.json');
    const link = path.join(dir, 'link.json');
    writeFileSync(target, '{}');
    symlinkSync(target, link);
    const key = fakeKey();
    await new KeysStore({ path: link, origin: 'keys_file' }).put('ci', key);
    expect(read(target)).toEqual({ ci: key });
    expect(readdirSync(dir).sort()).toEqual(['link.json', 'real.json']);
  });

  it('a failed write leaves the old file whole and no temporary file', async () => {
    const dir = folder();
    const file = path.join(dir, 'keys.json');
    writeFileSync(file, '{}');
    // Renaming over a folder fails after the temporary file was written.
    const folderInTheWay = path.join(dir, 'in-the-way');
    mkdirSync(path.join(folderInTheWay, 'child'), { recursive: true });
    await expect(writeFileAtomically(folderInTheWay, '{"a":1}')).rejects.toThrow();
    expect(readdirSync(dir).sort()).toEqual(['in-the-way', 'keys.json']);
  });
});

describe('openKeysStore', () => {
  it('adds the store’s profiles over the configured ones, but never over an environment one', async () => {
    const file = path.join(folder(), 'workbench-keys.json');
    const [demo, rotated, environment, stored] = [fakeKey(), fakeKey(), fakeKey(), fakeKey()];
    writeFileSync(file, JSON.stringify({ 'demo-child': rotated, default: stored, made: stored }));
    const store = new KeysStore({ path: file, origin: 'embedded' });
    const opened = await openKeysStore({
      keysStore: store,
      environmentProfiles: ['default'],
      mode: 'embedded',
      profiles: { 'demo-child': demo, default: environment },
    });
    expect(opened.profiles).toEqual({
      'demo-child': rotated,
      default: environment,
      made: stored,
    });
    expect(opened.keysStore).toBe(store);
  });

  it('stops start-up on a broken store, naming the file', async () => {
    const file = path.join(folder(), 'workbench-keys.json');
    writeFileSync(file, '[]');
    await expect(
      openKeysStore({
        keysStore: new KeysStore({ path: file, origin: 'embedded' }),
        environmentProfiles: [],
        mode: 'embedded',
        profiles: {},
      }),
    ).rejects.toThrow(`Workbench keys store (${file})`);
  });

  describe('from the configuration (as the start script runs it)', () => {
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it('embedded mode: the workbench’s own file beside the gateway’s database, loaded at start', async () => {
      const dir = folder();
      const key = fakeKey();
      writeFileSync(path.join(dir, 'workbench-keys.json'), JSON.stringify({ made: key }));
      vi.stubEnv('GATEWAY_DB', path.join(dir, 'gateway.db'));
      vi.stubEnv('WORKBENCH_KEYS_FILE', '');
      vi.stubEnv('GATEWAY_API_KEY', '');
      const opened = await openKeysStore({ mode: 'embedded', profiles: { demo: fakeKey() } });
      expect(opened.keysStore?.location).toEqual({
        path: path.join(dir, 'workbench-keys.json'),
        origin: 'embedded',
      });
      expect(opened.profiles.made).toBe(key);
      expect(opened.environmentProfiles).toEqual([]);
    });

    it('external mode with GATEWAY_API_KEY alone: no store, and `default` is the environment’s', async () => {
      const key = fakeKey();
      vi.stubEnv('WORKBENCH_KEYS_FILE', '');
      vi.stubEnv('GATEWAY_API_KEY', key);
      const opened = await openKeysStore({ mode: 'external', profiles: { default: key } });
      expect(opened.keysStore).toBeNull();
      expect(opened.environmentProfiles).toEqual(['default']);
      expect(opened.profiles).toEqual({ default: key });
    });
  });
});
