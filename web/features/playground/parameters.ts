/**
 * Which request parameters a model takes. The catalog's `supported_parameters` decides: a
 * parameter the model does not list is disabled with the reason, and never sent.
 */
import type { CatalogModel, ResponseFormat } from '../../../contract/workbench-api';
import type { Parameters } from './playground-types';

/** The parameters the playground edits that a model may or may not support. */
export type TunableParameter = 'max_tokens' | 'temperature' | 'top_p' | 'stop' | 'seed';

export const tunableParameters: readonly TunableParameter[] = [
  'max_tokens',
  'temperature',
  'top_p',
  'stop',
  'seed',
];

/** Whether a parameter can be used with a model, and why not when it cannot. */
export interface ParameterSupport {
  supported: boolean;
  reason: string | null;
}

/**
 * A model with no catalog entry, or an entry listing no parameters at all, is treated as taking
 * every parameter: a catalog's fields may change from one gateway version to the next, and an empty
 * list more likely means "not reported" than "nothing works". The gateway then has the last word.
 */
export function parameterSupport(
  parameter: TunableParameter | 'tools' | 'tool_choice' | 'response_format' | 'reasoning',
  model: CatalogModel | undefined,
): ParameterSupport {
  if (!model || model.supported_parameters.length === 0) return { supported: true, reason: null };
  if (model.supported_parameters.includes(parameter)) return { supported: true, reason: null };
  // Gateways list `max_completion_tokens` for some models; the playground sends `max_tokens`.
  if (parameter === 'max_tokens' && model.supported_parameters.includes('max_completion_tokens')) {
    return { supported: true, reason: null };
  }
  return {
    supported: false,
    reason: `${model.id} does not list “${parameter}” in its supported parameters.`,
  };
}

export function supportsTools(model: CatalogModel | undefined): boolean {
  return model?.supported_parameters.includes('tools') ?? false;
}

export function supportsImages(model: CatalogModel | undefined): boolean {
  return model?.input_modalities.includes('image') ?? false;
}

/** The gateway forwards `reasoning` only to a model listing it (docs/reasoning-and-structured-outputs.md). */
export function supportsReasoning(model: CatalogModel | undefined): boolean {
  return model?.supported_parameters.includes('reasoning') ?? false;
}

export type Capability = 'tools' | 'images' | 'reasoning';

/** What a model takes beyond plain text, from the same tests the playground's controls use. */
export function modelCapabilities(model: CatalogModel): Capability[] {
  const capabilities: Array<[Capability, boolean]> = [
    ['tools', supportsTools(model)],
    ['images', supportsImages(model)],
    ['reasoning', supportsReasoning(model)],
  ];
  return capabilities.filter(([, supported]) => supported).map(([capability]) => capability);
}

/**
 * A field's problem in words, or null when its value is fine (null values are always fine). With
 * the model's catalog entry, max_tokens is also held to the most it can produce: the gateway would
 * lower a larger one (or refuse it in strict mode), and the person should see the real bound.
 */
export function parameterProblem(
  parameter: TunableParameter,
  parameters: Parameters,
  model?: CatalogModel,
): string | null {
  switch (parameter) {
    case 'max_tokens': {
      const value = parameters.max_tokens;
      if (value === null) return null;
      if (!Number.isInteger(value) || value <= 0)
        return 'max_tokens must be a whole number above 0.';
      const most = model?.max_completion_tokens ?? null;
      return most !== null && value > most
        ? `max_tokens is ${value}, more than ${model!.id} can produce (${most}).`
        : null;
    }
    case 'temperature': {
      const value = parameters.temperature;
      if (value === null) return null;
      return value >= 0 && value <= 2 ? null : 'temperature must be between 0 and 2.';
    }
    case 'top_p': {
      const value = parameters.top_p;
      if (value === null) return null;
      return value >= 0 && value <= 1 ? null : 'top_p must be between 0 and 1.';
    }
    case 'stop':
      return parameters.stop.length <= 4 ? null : 'At most 4 stop sequences.';
    case 'seed': {
      const value = parameters.seed;
      if (value === null) return null;
      return Number.isSafeInteger(value) ? null : 'seed must be a whole number.';
    }
    default:
      return null;
  }
}

/** Stop sequences typed one per line; blank lines are not sequences. */
export function parseStopSequences(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

/** The `tool_choice` values that name no tool. */
export const toolChoiceModes = ['auto', 'none', 'required'] as const;

/**
 * The `tool_choice` to send, or why it cannot be: a named tool must be one the tools define.
 * `toolNames` are the names in the tools editor.
 */
export function toolChoiceValue(
  choice: string,
  toolNames: readonly string[],
): { value: unknown; problem: null } | { value: null; problem: string } {
  if ((toolChoiceModes as readonly string[]).includes(choice))
    return { value: choice, problem: null };
  if (toolNames.includes(choice))
    return { value: { type: 'function', function: { name: choice } }, problem: null };
  return {
    value: null,
    problem: `tool_choice names “${choice}”, which the tools do not define.`,
  };
}

/** The `response_format` to send, or why it cannot be (the JSON schema is not a JSON object). */
export function responseFormatValue(
  type: NonNullable<Parameters['response_format']>,
  schemaText: string,
): { value: ResponseFormat; problem: null } | { value: null; problem: string } {
  if (type !== 'json_schema') return { value: { type }, problem: null };
  if (schemaText.trim() === '')
    return { value: null, problem: 'Write the JSON schema the reply must match.' };
  let schema: unknown;
  try {
    schema = JSON.parse(schemaText);
  } catch (error) {
    return {
      value: null,
      problem: `The JSON schema is not valid JSON: ${(error as Error).message}`,
    };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return {
      value: null,
      problem: 'The JSON schema must be a JSON object, such as {"type": "object"}.',
    };
  // The chat form wants the schema named; its own title is the natural name when it has one.
  const title = (schema as { title?: unknown }).title;
  const name =
    typeof title === 'string' && /^[a-zA-Z0-9_-]{1,64}$/.test(title) ? title : 'response';
  return {
    value: { type, json_schema: { name, schema: schema as Record<string, unknown> } },
    problem: null,
  };
}
