/**
 * The keys store: the file where the workbench keeps the key profiles it makes at run time (a
 * child key it created, a key it rotated), so a new key never has to reach the browser and
 * outlives a restart. It is WORKBENCH_KEYS_FILE when that is set; in embedded mode without it,
 * the workbench's own `workbench-keys.json` beside the embedded gateway's database (`data/`).
 * An external gateway with GATEWAY_API_KEY alone has no store, and keys are then not created.
 *
 * Every change re-reads the file, applies itself, and rewrites the whole file atomically: a
 * temporary file in the same folder (owner-only, 0600), flushed to disk, renamed over the old
 * one. A reader (or a crash) sees the old file or the new one, never half of one. Changes are
 * applied one at a time. No message here ever quotes a key.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { loadWorkbenchConfig } from '../core/config';
import { ApiFailure } from '../core/errors';
import { parseKeysFile } from './keys-file';

/** The workbench's own keys store in embedded mode, beside the gateway's database. */
export const embeddedKeysStoreName = 'workbench-keys.json';

export interface KeysStoreLocation {
  path: string;
  /** `keys_file`: WORKBENCH_KEYS_FILE, the person's own; `embedded`: the workbench's own file. */
  origin: 'keys_file' | 'embedded';
}

/** A change the store could not make; the message names the file and never a key. */
export class KeysStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KeysStoreError';
  }
}

/**
 * Where new keys go: WORKBENCH_KEYS_FILE, else in embedded mode the workbench's own file in the
 * data folder; null when there is neither (an external gateway with GATEWAY_API_KEY alone).
 */
export function keysStoreLocation(settings: {
  keysFile: string | null;
  embedded: boolean;
  dataDirectory: string;
}): KeysStoreLocation | null {
  if (settings.keysFile) return { path: path.resolve(settings.keysFile), origin: 'keys_file' };
  if (settings.embedded) {
    return { path: path.join(settings.dataDirectory, embeddedKeysStoreName), origin: 'embedded' };
  }
  return null;
}

/** Why creating or rotating a key is refused without a store, and what to do. */
export const noKeysStoreAdvice =
  'Set WORKBENCH_KEYS_FILE to a JSON file the workbench may rewrite (it keeps new keys there, readable only by its owner) and restart the workbench. A new key is never sent to the browser, so without such a file there is nowhere to keep it.';

/**
 * Writes `text` to `target` so that the file is either the old one or the whole new one: a
 * temporary file beside it (same file system, so the rename is atomic), owner-only, flushed to
 * disk before the rename, and the folder flushed after it.
 */
export async function writeFileAtomically(target: string, text: string): Promise<void> {
  const directory = path.dirname(target);
  const temporary = path.join(
    directory,
    `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  // `wx`: never follow or reuse something already at the temporary name.
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    // The creation mode is filtered by the umask; the file must be exactly owner read/write.
    await handle.chmod(0o600);
    await handle.sync();
    await handle.close();
    await rename(temporary, target);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
  try {
    const folder = await open(directory, 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  } catch {
    // Not every platform can flush a folder; the rename itself has happened.
  }
}

export class KeysStore {
  /** Changes run one after another: each re-reads the file the previous one wrote. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly location: KeysStoreLocation) {}

  /** Where the secrets are kept, in words a person can act on (shown in the browser). */
  get description(): string {
    return this.location.origin === 'keys_file'
      ? `${this.location.path} (WORKBENCH_KEYS_FILE)`
      : `${this.location.path} (the workbench's keys file for the embedded gateway)`;
  }

  private get source(): string {
    return this.location.origin === 'keys_file' ? 'WORKBENCH_KEYS_FILE' : 'Workbench keys store';
  }

  /** The profiles in the file; none when it does not exist yet. */
  async read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.location.path, 'utf8');
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOENT') return {};
      throw new KeysStoreError(
        `${this.source} (${this.location.path}) cannot be read (${code ?? 'unknown error'}).`,
      );
    }
    try {
      return parseKeysFile(text, this.location.path, this.source);
    } catch (error) {
      // A file a person broke is not overwritten: its other profiles would be lost.
      throw new KeysStoreError(
        `${(error as Error).message}; fix the file so the workbench can update it.`,
      );
    }
  }

  /** Adds the profile, or points it at a new key. */
  put(name: string, key: string): Promise<void> {
    return this.putAll({ [name]: key });
  }

  /** Adds or repoints several profiles in one rewrite. */
  putAll(entries: Record<string, string>): Promise<void> {
    return this.change((profiles) => {
      Object.assign(profiles, entries);
    });
  }

  /** Removes the profiles; returns those the file held. */
  remove(names: string[]): Promise<string[]> {
    return this.change((profiles) => {
      const held = names.filter((name) => Object.hasOwn(profiles, name));
      for (const name of held) delete profiles[name];
      return held;
    });
  }

  private change<T>(apply: (profiles: Record<string, string>) => T): Promise<T> {
    const run = async () => {
      const profiles = await this.read();
      const result = apply(profiles);
      await this.write(`${JSON.stringify(profiles, null, 2)}\n`);
      return result;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Rewrites the file atomically; a symbolic link is followed, so the link stays a link. */
  protected async write(text: string): Promise<void> {
    try {
      if (this.location.origin === 'embedded') {
        await mkdir(path.dirname(this.location.path), { recursive: true, mode: 0o700 });
      }
      const target = await realpath(this.location.path).catch(() => this.location.path);
      await writeFileAtomically(target, text);
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new KeysStoreError(
        `${this.source} (${this.location.path}) could not be written (${code ?? (error as Error).message}).`,
        { cause: error },
      );
    }
  }
}

/** What the app needs of the store: the store, the profiles with its own loaded, and the fixed ones. */
export interface OpenedKeysStore {
  keysStore: KeysStore | null;
  profiles: Record<string, string>;
  environmentProfiles: string[];
}

/**
 * Opens the keys store for a starting workbench and adds the profiles it holds (so keys created
 * or rotated before a restart are there again). `keysStore` undefined means "from the
 * configuration", as the start script runs it; a test passes its own store or null.
 * Profiles from the environment (GATEWAY_API_KEY's `default`) keep their key: the variable is
 * what the person set on purpose, as in `buildProfiles`.
 */
export async function openKeysStore(options: {
  keysStore?: KeysStore | null;
  environmentProfiles?: string[];
  mode: 'embedded' | 'external';
  profiles: Record<string, string>;
}): Promise<OpenedKeysStore> {
  let { keysStore, environmentProfiles } = options;
  if (keysStore === undefined || environmentProfiles === undefined) {
    const config = loadWorkbenchConfig();
    if (keysStore === undefined) {
      const location = keysStoreLocation({
        keysFile: config.keysFile,
        embedded: options.mode === 'embedded',
        dataDirectory: config.dataDirectory,
      });
      keysStore = location ? new KeysStore(location) : null;
    }
    environmentProfiles ??= config.gatewayApiKey ? ['default'] : [];
  }
  let profiles = options.profiles;
  if (keysStore) {
    // Start-up stops on a broken store, naming the file, as on a broken WORKBENCH_KEYS_FILE.
    const stored = await keysStore.read();
    const fixed = Object.fromEntries(
      environmentProfiles
        .filter((name) => options.profiles[name] !== undefined)
        .map((name) => [name, options.profiles[name]!]),
    );
    profiles = { ...options.profiles, ...stored, ...fixed };
  }
  return { keysStore, profiles, environmentProfiles };
}

/** The workbench's settings for keeping keys (options of the app and of startWorkbench). */
export interface KeysStoreSettings {
  /**
   * Where created and rotated keys are kept. Undefined: from the configuration
   * (WORKBENCH_KEYS_FILE, or in embedded mode `workbench-keys.json` in the data folder), as
   * `startWorkbench` resolves it; null: nowhere, so creating and rotating keys are refused.
   */
  keysStore?: KeysStore | null;
  /**
   * Profiles whose key an environment variable gives (GATEWAY_API_KEY's `default`): the
   * workbench cannot rewrite them, so it does not rotate them.
   */
  environmentProfiles?: string[];
}

/** The keys store, or the 409 that says why there is none and what to do. */
export function requireKeysStore(keysStore: KeysStore | null, action: string): KeysStore {
  if (keysStore) return keysStore;
  throw new ApiFailure(409, {
    message: `${action}: the workbench has nowhere to keep a new key. It uses an external gateway with GATEWAY_API_KEY only, and a new key is never sent to the browser.`,
    stage: 'profile',
    type: 'keys_store_unavailable',
    advice: noKeysStoreAdvice,
  });
}
