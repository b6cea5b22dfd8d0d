/**
 * The request parameters beside the conversation. A parameter the chosen model does not list
 * is disabled with the reason (its value is kept, but not sent); an empty field means "the
 * model's default" and is not sent either.
 */
import { useId, useState } from 'react';
import { reasoningEfforts, type CatalogModel } from '../../../../contract/workbench-api';
import { classNames } from '../../../components/class-names';
import {
  parameterProblem,
  parameterSupport,
  parseStopSequences,
  responseFormatValue,
  toolChoiceModes,
  toolChoiceValue,
  type TunableParameter,
} from '../parameters';
import type { Parameters } from '../playground-types';

const descriptions: Record<
  TunableParameter | 'tool_choice' | 'response_format' | 'reasoning_effort',
  string
> = {
  max_tokens: 'Upper bound on the reply’s tokens (and on what is reserved from the balance).',
  temperature: '0–2. Higher is more varied; empty uses the model’s default.',
  top_p: '0–1. Nucleus sampling; change this or temperature, rarely both.',
  stop: 'Up to 4 sequences, one per line; the reply ends before any of them.',
  seed: 'A whole number for repeatable sampling, where the model supports it.',
  tool_choice:
    'Whether the model may (auto), must (required) or must not (none) call a tool, or which one. Sent only with tools.',
  response_format: 'Plain text, any JSON object, or JSON that matches a schema.',
  reasoning_effort:
    'How hard the model thinks before it answers; reasoning tokens are charged as output.',
};

function FieldShell({
  id,
  label,
  parameter,
  reason,
  problem,
  children,
}: {
  id: string;
  label: string;
  parameter: keyof typeof descriptions;
  reason: string | null;
  problem: string | null;
  children: React.ReactNode;
}) {
  return (
    <div className="flex flex-col gap-0.5">
      <label
        htmlFor={id}
        className={classNames(
          'font-mono text-xs font-medium',
          reason && 'text-zinc-400 dark:text-zinc-500',
        )}
      >
        {label}
      </label>
      {children}
      <p id={`${id}-description`} className="text-xs text-zinc-500 dark:text-zinc-400">
        {reason ? (
          // A quiet reason: what a model does not take is a fact, not a warning.
          <span className="italic">Disabled: {reason}</span>
        ) : (
          descriptions[parameter]
        )}
      </p>
      {problem && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {problem}
        </p>
      )}
    </div>
  );
}

const inputClasses =
  'h-8 w-full rounded-md border border-zinc-300 bg-white px-2 text-sm disabled:cursor-not-allowed disabled:bg-zinc-100 disabled:text-zinc-400 dark:border-zinc-700 dark:bg-zinc-900 dark:disabled:bg-zinc-800 dark:disabled:text-zinc-500';

/**
 * A number that may be empty. The typed text is kept as typed ("0." on the way to "0.5"); the
 * parsed value (or null) goes up on every change.
 */
function NumberParameter({
  parameter,
  value,
  step,
  min,
  max,
  model,
  parameters,
  onChange,
}: {
  parameter: 'max_tokens' | 'temperature' | 'top_p' | 'seed';
  value: number | null;
  step: number;
  min?: number;
  max?: number;
  model: CatalogModel | undefined;
  parameters: Parameters;
  onChange(value: number | null): void;
}) {
  const id = useId();
  const [text, setText] = useState(value === null ? '' : String(value));
  // A value set from outside (a preset, a reopened run) replaces the typed text.
  const [shownValue, setShownValue] = useState(value);
  if (value !== shownValue) {
    setShownValue(value);
    if (value !== (text.trim() === '' ? null : Number(text)))
      setText(value === null ? '' : String(value));
  }
  const support = parameterSupport(parameter, model);
  const problem = Number.isNaN(Number(text))
    ? `${parameter} must be a number.`
    : parameterProblem(parameter, parameters, model);
  return (
    <FieldShell
      id={id}
      label={parameter}
      parameter={parameter}
      reason={support.reason}
      problem={support.supported ? problem : null}
    >
      <input
        id={id}
        type="number"
        inputMode={step < 1 ? 'decimal' : 'numeric'}
        step={step}
        min={min}
        max={max}
        placeholder="default"
        disabled={!support.supported}
        aria-describedby={`${id}-description`}
        aria-invalid={problem !== null && support.supported}
        value={text}
        onChange={(event) => {
          const next = event.target.value;
          setText(next);
          const parsed = next.trim() === '' ? null : Number(next);
          const nextValue = parsed === null || Number.isNaN(parsed) ? null : parsed;
          setShownValue(nextValue);
          onChange(nextValue);
        }}
        className={inputClasses}
      />
    </FieldShell>
  );
}

/** `tool_choice`: a mode, or one of the tools by name. */
function ToolChoiceField({
  parameters,
  model,
  toolNames,
  onChange,
}: {
  parameters: Parameters;
  model: CatalogModel | undefined;
  toolNames: readonly string[];
  onChange(changes: Partial<Parameters>): void;
}) {
  const id = useId();
  const choice = parameters.tool_choice;
  const support = parameterSupport('tool_choice', model);
  const problem =
    choice !== null && toolNames.length > 0 ? toolChoiceValue(choice, toolNames).problem : null;
  // A chosen tool since renamed or removed stays listed, so the select shows what is set.
  const names =
    choice !== null &&
    !(toolChoiceModes as readonly string[]).includes(choice) &&
    !toolNames.includes(choice)
      ? [...toolNames, choice]
      : toolNames;
  return (
    <FieldShell
      id={id}
      label="tool_choice"
      parameter="tool_choice"
      reason={support.reason}
      problem={support.supported ? problem : null}
    >
      <NotSentSelect
        id={id}
        disabled={!support.supported}
        invalid={problem !== null && support.supported}
        value={choice}
        options={[
          ...toolChoiceModes.map((mode) => [mode, mode] as const),
          ...names.map((name) => [name, `function: ${name}`] as const),
        ]}
        onChange={(value) => onChange({ tool_choice: value })}
      />
    </FieldShell>
  );
}

/** `reasoning_effort`, offered where the model lists `reasoning`. */
function ReasoningEffortField({
  parameters,
  model,
  onChange,
}: {
  parameters: Parameters;
  model: CatalogModel | undefined;
  onChange(changes: Partial<Parameters>): void;
}) {
  const id = useId();
  const support = parameterSupport('reasoning', model);
  return (
    <FieldShell
      id={id}
      label="reasoning_effort"
      parameter="reasoning_effort"
      reason={support.reason}
      problem={null}
    >
      <NotSentSelect
        id={id}
        disabled={!support.supported}
        value={parameters.reasoning_effort}
        options={reasoningEfforts.map((effort) => [effort, effort] as const)}
        onChange={(value) =>
          onChange({ reasoning_effort: value as Parameters['reasoning_effort'] })
        }
      />
    </FieldShell>
  );
}

/** `response_format`, and for `json_schema` the schema, checked as it is typed. */
function ResponseFormatField({
  parameters,
  model,
  onChange,
}: {
  parameters: Parameters;
  model: CatalogModel | undefined;
  onChange(changes: Partial<Parameters>): void;
}) {
  const id = useId();
  const schemaId = useId();
  const support = parameterSupport('response_format', model);
  const format = parameters.response_format;
  const problem =
    format === 'json_schema'
      ? responseFormatValue(format, parameters.response_schema).problem
      : null;
  return (
    <>
      <FieldShell
        id={id}
        label="response_format"
        parameter="response_format"
        reason={support.reason}
        problem={null}
      >
        <NotSentSelect
          id={id}
          disabled={!support.supported}
          value={format}
          options={(['text', 'json_object', 'json_schema'] as const).map(
            (kind) => [kind, kind] as const,
          )}
          onChange={(value) =>
            onChange({ response_format: value as Parameters['response_format'] })
          }
        />
      </FieldShell>
      {format === 'json_schema' && support.supported && (
        <div className="flex flex-col gap-0.5">
          <label htmlFor={schemaId} className="text-xs font-medium">
            JSON schema
          </label>
          <textarea
            id={schemaId}
            rows={5}
            spellCheck={false}
            placeholder={'{"type": "object", "properties": {…}}'}
            aria-invalid={problem !== null}
            aria-describedby={problem !== null ? `${schemaId}-problem` : undefined}
            value={parameters.response_schema}
            onChange={(event) => onChange({ response_schema: event.target.value })}
            className={classNames(inputClasses, 'h-auto py-1 font-mono text-xs')}
          />
          {problem && (
            <p
              id={`${schemaId}-problem`}
              role="alert"
              className="text-xs text-red-700 dark:text-red-300"
            >
              {problem}
            </p>
          )}
        </div>
      )}
    </>
  );
}

export function ParametersPanel({
  parameters,
  model,
  toolNames,
  onChange,
}: {
  parameters: Parameters;
  model: CatalogModel | undefined;
  /** The names of the tools defined in the tools editor, offered as `tool_choice`. */
  toolNames: readonly string[];
  onChange(changes: Partial<Parameters>): void;
}) {
  const stopId = useId();
  const streamId = useId();
  const [stopText, setStopText] = useState(parameters.stop.join('\n'));
  const [shownStop, setShownStop] = useState(parameters.stop);
  if (parameters.stop !== shownStop) {
    setShownStop(parameters.stop);
    if (parseStopSequences(stopText).join('\n') !== parameters.stop.join('\n'))
      setStopText(parameters.stop.join('\n'));
  }
  const stopSupport = parameterSupport('stop', model);
  const shared = { model, parameters };

  return (
    <section aria-labelledby={`${stopId}-heading`} className="flex flex-col gap-3">
      <h2 id={`${stopId}-heading`} className="text-sm font-semibold">
        Parameters
      </h2>
      <NumberParameter
        parameter="max_tokens"
        value={parameters.max_tokens}
        step={1}
        min={1}
        onChange={(value) => onChange({ max_tokens: value })}
        {...shared}
      />
      <NumberParameter
        parameter="temperature"
        value={parameters.temperature}
        step={0.1}
        min={0}
        max={2}
        onChange={(value) => onChange({ temperature: value })}
        {...shared}
      />
      <NumberParameter
        parameter="top_p"
        value={parameters.top_p}
        step={0.05}
        min={0}
        max={1}
        onChange={(value) => onChange({ top_p: value })}
        {...shared}
      />
      <FieldShell
        id={stopId}
        label="stop"
        parameter="stop"
        reason={stopSupport.reason}
        problem={stopSupport.supported ? parameterProblem('stop', parameters) : null}
      >
        <textarea
          id={stopId}
          rows={2}
          placeholder="none"
          disabled={!stopSupport.supported}
          aria-describedby={`${stopId}-description`}
          value={stopText}
          onChange={(event) => {
            setStopText(event.target.value);
            const stop = parseStopSequences(event.target.value);
            setShownStop(stop);
            onChange({ stop });
          }}
          className={classNames(inputClasses, 'h-auto py-1 font-mono')}
        />
      </FieldShell>
      <NumberParameter
        parameter="seed"
        value={parameters.seed}
        step={1}
        onChange={(value) => onChange({ seed: value })}
        {...shared}
      />
      <ToolChoiceField {...shared} toolNames={toolNames} onChange={onChange} />
      <ResponseFormatField {...shared} onChange={onChange} />
      <ReasoningEffortField {...shared} onChange={onChange} />
      <div className="flex items-start gap-2">
        <input
          id={streamId}
          type="checkbox"
          checked={parameters.stream}
          onChange={(event) => onChange({ stream: event.target.checked })}
          aria-describedby={`${streamId}-description`}
          className="mt-0.5 size-4 accent-sky-700"
        />
        <div className="flex flex-col">
          <label htmlFor={streamId} className="text-sm font-medium">
            Stream the reply
          </label>
          <p id={`${streamId}-description`} className="text-xs text-zinc-500 dark:text-zinc-400">
            {/* Describes the state the box is in, so it never reads as the opposite. */}
            {parameters.stream
              ? 'On: the reply arrives token by token, with a time to first token.'
              : 'Off: one JSON answer, no time to first token.'}
          </p>
        </div>
      </div>
    </section>
  );
}

/** A parameter's choices after "default (not sent)", which stands for null: nothing is sent. */
function NotSentSelect({
  id,
  disabled,
  invalid = false,
  value,
  options,
  onChange,
}: {
  id: string;
  disabled: boolean;
  invalid?: boolean;
  value: string | null;
  options: ReadonlyArray<readonly [value: string, label: string]>;
  onChange(value: string | null): void;
}) {
  return (
    <select
      id={id}
      disabled={disabled}
      aria-describedby={`${id}-description`}
      aria-invalid={invalid || undefined}
      value={value ?? ''}
      onChange={(event) => onChange(event.target.value || null)}
      className={inputClasses}
    >
      <option value="">default (not sent)</option>
      {options.map(([optionValue, label]) => (
        <option key={optionValue} value={optionValue}>
          {label}
        </option>
      ))}
    </select>
  );
}
