/**
 * The server-side routing names (docs/routing.md): aliases (`team/coder`, a pool of catalog
 * models) from the providers file, and presets (`@preset/reviewer`, a stored request shape) from
 * the providers file and the admin API (kept in the store, catalog/stored-presets.ts). Each is listed in `GET /v1/models` beside the catalog,
 * priced at its dearest member as a bound, with its members.
 */
import type { AliasDefinition, PresetDefinition } from '../../contract/routing';
import { PRESET_PREFIX } from '../../contract/routing';
import { GatewayError, invalidRequest } from '../errors';
import { checkRoutingNames } from '../providers/providers-file';
import type { Catalog, CatalogModel } from './catalog';

/** A listed name: a catalog-shaped entry and the ids it names, in order. */
export type RoutingEntry = { model: CatalogModel; members: string[] };

export class RoutingNames {
  private readonly aliases: Map<string, AliasDefinition>;
  /** The providers file's presets: configuration the operator owns, never replaced by the API. */
  private readonly filePresets: Map<string, PresetDefinition>;
  /** Those served: the file's, then the stored ones (admin API) whose id the file does not use. */
  private presets: Map<string, PresetDefinition>;
  /** Bumped on every change: a listing built from these names is rebuilt when it moves. */
  version = 0;

  constructor(
    private readonly catalog: Catalog,
    file: { aliases?: AliasDefinition[]; presets?: PresetDefinition[] } | null,
  ) {
    this.aliases = new Map((file?.aliases ?? []).map((alias) => [alias.id, alias]));
    this.filePresets = new Map((file?.presets ?? []).map((preset) => [preset.id, preset]));
    this.presets = new Map(this.filePresets);
  }

  alias(id: string): AliasDefinition | undefined {
    return this.aliases.get(id);
  }

  preset(id: string): PresetDefinition | undefined {
    return this.presets.get(id);
  }

  presetList(): PresetDefinition[] {
    return [...this.presets.values()];
  }

  /**
   * Refuses a preset the admin API may not keep: one whose id the providers file defines (409),
   * or one naming what is neither a catalog model nor an alias (400, naming the field).
   */
  checkStoredPreset(preset: PresetDefinition): void {
    this.refuseFilePreset(preset.id, 'replaced');
    const problem = this.problemOf(preset);
    if (problem) {
      const [field, ...why] = problem.split(': ');
      throw invalidRequest(`Invalid field '${field}': ${why.join(': ')}`);
    }
  }

  /** A 409 when the providers file defines `id`: the API neither replaces nor deletes it. */
  refuseFilePreset(id: string, change: 'replaced' | 'deleted'): void {
    if (!this.filePresets.has(id)) return;
    throw new GatewayError({
      status: 409,
      type: 'conflict',
      stage: 'validation',
      message: `'${id}' is defined in the providers file and cannot be ${change} through the API: change it in the file.`,
    });
  }

  /**
   * Serves `stored` (the store's presets, in its order) beside the file's, in place of those
   * served before. Returns those left out, each with why: a file preset of the same id wins, and
   * one naming what the catalog no longer has waits in the store until it does.
   */
  useStoredPresets(stored: PresetDefinition[]): Array<{ id: string; why: string }> {
    const presets = new Map(this.filePresets);
    const skipped: Array<{ id: string; why: string }> = [];
    for (const preset of stored) {
      const problem = this.filePresets.has(preset.id)
        ? 'the providers file defines a preset of this id, which wins'
        : this.problemOf(preset);
      if (problem) skipped.push({ id: preset.id, why: problem });
      else presets.set(preset.id, preset);
    }
    this.presets = presets;
    this.version += 1;
    return skipped;
  }

  /** What is wrong with a preset against the catalog and aliases (`field: why`), if anything. */
  private problemOf(preset: PresetDefinition): string | undefined {
    return checkRoutingNames(
      new Set(this.catalog.models.map((model) => model.id)),
      [...this.aliases.values()],
      [preset],
    )?.replace(/^presets\[0\]\./, '');
  }

  /**
   * A name as a form gives it (a path, a count-tokens body): an alias or a preset as itself, else
   * the catalog's model (bare names where the form allows them), with the model it reaches first.
   */
  resolve(name: string, options: { allowBareName?: boolean } = {}) {
    if (this.aliases.has(name) || this.presets.has(name)) {
      const first = this.reach(name)[0];
      if (first) return { id: name, model: first };
    }
    const model = this.catalog.resolve(name, options);
    return { id: model.id, model };
  }

  /** The catalog models a name may reach, in order (a preset through its model and fallbacks). */
  reach(id: string): CatalogModel[] {
    const preset = this.presets.get(id);
    const named = preset ? [preset.model, ...(preset.models ?? [])] : [id];
    const ids = [...new Set(named.flatMap((name) => this.aliases.get(name)?.models ?? [name]))];
    return ids.flatMap((modelId) => this.catalog.find(modelId) ?? []);
  }

  /** The aliases and presets as listed entries, in definition order (aliases first). */
  entries(): RoutingEntry[] {
    const entries: RoutingEntry[] = [];
    for (const alias of this.aliases.values())
      entries.push(this.entry(alias.id, alias.name, alias.models, `Alias: ${describe(alias)}`));
    for (const preset of this.presets.values()) {
      const members = [preset.model, ...(preset.models ?? [])];
      entries.push(
        this.entry(preset.id, preset.name, members, `Preset: ${members.join(', then ')}.`),
      );
    }
    return entries;
  }

  /** One entry: its limits are its first member's, its prices the dearest member's, as a bound. */
  private entry(
    id: string,
    name: string | undefined,
    members: string[],
    description: string,
  ): RoutingEntry {
    const reached = this.reach(id);
    const first = reached[0]!;
    const routes = reached.flatMap((model) => model.routes);
    return {
      members,
      model: {
        ...first,
        id,
        name: name ?? id,
        description,
        promptNanos: Math.max(...routes.map((route) => route.promptNanos)),
        completionNanos: Math.max(...routes.map((route) => route.completionNanos)),
        routes,
      },
    };
  }
}

const describe = (alias: AliasDefinition) =>
  alias.sort
    ? `${alias.models.join(', ')}, by ${alias.sort}.`
    : `${alias.models.join(', then ')}, in this order.`;

export const isPresetId = (id: string) => id.startsWith(PRESET_PREFIX);
