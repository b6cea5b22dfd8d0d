/**
 * The presets the admin API adds, kept in the gateway's store so they outlive a restart and every
 * instance on the store serves them (docs/routing.md). Each change is written to the store first
 * and then read back into RoutingNames; other instances see the store's preset version move
 * (polled, `watch`) and read them too.
 */
import type { Logger } from 'pino';
import { presetSchema, type PresetDefinition } from '../../contract/routing';
import type { PresetStore } from '../store/presets';
import type { RoutingNames } from './routing-names';

export class StoredPresets {
  /** The store's preset version when they were last read; -1 before the first read. */
  private seen = -1;
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: PresetStore,
    private readonly names: RoutingNames,
    private readonly logger: Logger,
  ) {}

  /** Checks and keeps a preset, then serves it; true when it was new. */
  async put(preset: PresetDefinition): Promise<boolean> {
    this.names.checkStoredPreset(preset);
    const created = await this.store.put({
      id: preset.id,
      definition: preset,
      updatedAt: Math.floor(Date.now() / 1000),
    });
    await this.reload();
    return created;
  }

  /** Whether a stored preset was deleted (a file preset is refused with a 409). */
  async delete(id: string): Promise<boolean> {
    this.names.refuseFilePreset(id, 'deleted');
    const deleted = await this.store.delete(id);
    if (deleted) await this.reload();
    return deleted;
  }

  /**
   * Reads the stored presets into the names. Reads run one after another, so the last one
   * started, which saw every change committed before it, is the one applied last.
   */
  reload(): Promise<void> {
    const next = this.reading.catch(() => undefined).then(() => this.read());
    this.reading = next;
    return next;
  }

  /**
   * Reads the presets again whenever the store's version moved, checked every `intervalMs`
   * (a change on another instance is served here within about that long). Returns `stop`.
   */
  watch(intervalMs: number): () => void {
    let checking = false;
    const timer = setInterval(() => {
      if (checking) return;
      checking = true;
      this.store
        .version()
        .then((version) => (version === this.seen ? undefined : this.reload()))
        .catch((error: unknown) => {
          this.logger.error({ err: error }, 'reading the stored presets failed; will retry');
        })
        .finally(() => (checking = false));
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async read(): Promise<void> {
    // The version first: a change committed between the two reads is read again next time.
    const version = await this.store.version();
    const presets: PresetDefinition[] = [];
    for (const row of await this.store.list()) {
      const parsed = presetSchema.safeParse(row.definition);
      if (parsed.success && parsed.data.id === row.id) presets.push(parsed.data);
      else this.skipped(row.id, 'it is not a valid preset any more');
    }
    for (const { id, why } of this.names.useStoredPresets(presets)) this.skipped(id, why);
    this.seen = version;
  }

  private skipped(id: string, why: string): void {
    this.logger.warn({ preset: id }, `the stored preset ${id} is not served: ${why}`);
  }
}
