/**
 * A searchable model picker (the ARIA 1.2 combobox pattern: a text input with a listbox), each
 * option showing its prices and context length so cost is visible before a run.
 */
import { Fragment, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { CatalogModel } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { classNames } from '../../../components/class-names';
import { formatContextLength, formatPricePerMillion } from '../../../lib/format';
import { modelCapabilities } from '../parameters';

/** The most options drawn at once; typing narrows a long catalog. */
const maximumOptions = 60;

export function modelMatches(model: CatalogModel, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = `${model.id} ${model.name} ${model.author}`.toLowerCase();
  return words.every((word) => haystack.includes(word));
}

/** "in $0.50 · out $1.50 /M · 128K" */
export function describeModelPrice(model: CatalogModel): string {
  const free =
    model.prompt_price !== null &&
    Number(model.prompt_price) === 0 &&
    Number(model.completion_price) === 0;
  const price = free
    ? 'free'
    : `in ${formatPricePerMillion(model.prompt_price)} · out ${formatPricePerMillion(model.completion_price)} /M`;
  return `${price} · ${formatContextLength(model.context_length)} context`;
}

/** The name a person looks for; a model without one goes by its id. */
function displayName(model: CatalogModel): string {
  return model.name || model.id;
}

/** By name, as people look a model up, not in the gateway's catalog order; ties by id. */
function byName(first: CatalogModel, second: CatalogModel): number {
  return (
    displayName(first).localeCompare(displayName(second), 'en', {
      sensitivity: 'base',
      numeric: true,
    }) || first.id.localeCompare(second.id)
  );
}

export function ModelCombobox({
  label,
  value,
  models,
  onChange,
  placeholder = 'Search models…',
  disabled = false,
  className,
}: {
  label: string;
  value: string;
  models: CatalogModel[];
  onChange(modelId: string): void;
  placeholder?: string;
  disabled?: boolean;
  className?: string;
}) {
  const inputId = useId();
  const listId = useId();
  const [query, setQuery] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [activeIndex, setActiveIndex] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);

  const sorted = useMemo(() => [...models].sort(byName), [models]);
  const filtered = useMemo(() => {
    const matching = query ? sorted.filter((model) => modelMatches(model, query)) : sorted;
    return matching.slice(0, maximumOptions);
  }, [sorted, query]);
  const selected = models.find((model) => model.id === value);

  function choose(modelId: string) {
    onChange(modelId);
    setQuery(null);
    setOpen(false);
  }

  function moveActive(step: number) {
    if (filtered.length === 0) return;
    const next = (activeIndex + step + filtered.length) % filtered.length;
    setActiveIndex(next);
    setOpen(true);
    listRef.current?.querySelector(`[data-index="${next}"]`)?.scrollIntoView({ block: 'nearest' });
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        if (!open) setOpen(true);
        else moveActive(1);
        break;
      case 'ArrowUp':
        event.preventDefault();
        moveActive(-1);
        break;
      case 'Enter': {
        if (!open) return;
        event.preventDefault();
        const exact = query ? models.find((model) => model.id === query.trim()) : undefined;
        const active = filtered[activeIndex];
        if (exact) choose(exact.id);
        else if (active) choose(active.id);
        break;
      }
      case 'Escape':
        if (open) {
          // Closing the list is this Escape's whole job: it must not also stop a running reply.
          event.stopPropagation();
          event.preventDefault();
          setOpen(false);
          setQuery(null);
        }
        break;
      default:
        break;
    }
  }

  const activeOption = open ? filtered[activeIndex] : undefined;
  return (
    <div className={classNames('relative flex min-w-0 flex-col gap-0.5', className)}>
      <label htmlFor={inputId} className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
        {label}
      </label>
      <input
        id={inputId}
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={activeOption ? `${listId}-${activeIndex}` : undefined}
        aria-describedby={selected ? `${inputId}-price` : undefined}
        autoComplete="off"
        spellCheck={false}
        disabled={disabled}
        placeholder={placeholder}
        value={query ?? value}
        onChange={(event) => {
          setQuery(event.target.value);
          setActiveIndex(0);
          setOpen(true);
        }}
        onFocus={(event) => {
          event.target.select();
          setActiveIndex(
            Math.max(
              0,
              filtered.findIndex((model) => model.id === value),
            ),
          );
          setOpen(true);
        }}
        onClick={() => setOpen(true)}
        onBlur={() => {
          setOpen(false);
          setQuery(null);
        }}
        onKeyDown={onKeyDown}
        // A long id can be wider than the box on a phone: the whole id stays one hover away.
        title={query === null && value !== '' ? value : undefined}
        className="h-9 w-full min-w-0 rounded-md border border-zinc-300 bg-white px-2 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-900"
      />
      {selected && (
        // Wrapped, not cut: on a phone the name and prices take two lines rather than an ellipsis.
        <span
          id={`${inputId}-price`}
          className="text-xs [overflow-wrap:anywhere] text-zinc-500 dark:text-zinc-400"
        >
          {selected.name !== selected.id ? `${selected.name} · ` : ''}
          {describeModelPrice(selected)}
        </span>
      )}
      <ul
        ref={listRef}
        id={listId}
        role="listbox"
        aria-label={`${label} options`}
        hidden={!open}
        className="absolute top-full left-0 z-40 mt-1 max-h-80 w-full min-w-72 overflow-y-auto rounded-md border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
      >
        {filtered.length === 0 && (
          <li className="px-2 py-1.5 text-sm text-zinc-500" role="presentation">
            No model matches “{query}”.
          </li>
        )}
        {filtered.map((model, index) => (
          <li
            key={model.id}
            id={`${listId}-${index}`}
            data-index={index}
            role="option"
            aria-selected={model.id === value}
            // mousedown, not click: the input's blur would close the list before a click lands.
            onMouseDown={(event) => {
              event.preventDefault();
              choose(model.id);
            }}
            onMouseMove={() => setActiveIndex(index)}
            className={classNames(
              'flex cursor-default flex-col rounded px-2 py-1.5',
              index === activeIndex && 'bg-sky-100 dark:bg-sky-900',
              model.id === value && 'font-semibold',
            )}
          >
            <span className="flex min-w-0 items-center gap-1">
              <span className="truncate font-mono text-sm">{model.id}</span>
              {/* The spaces keep the words apart in the option's accessible name. */}
              {modelCapabilities(model).map((capability) => (
                <Fragment key={capability}>
                  {' '}
                  <Badge className="shrink-0 font-normal">{capability}</Badge>
                </Fragment>
              ))}
            </span>{' '}
            <span
              className={classNames(
                'truncate text-xs font-normal text-zinc-600',
                // zinc-400 over the dark highlight (sky-900) is 3.6:1; zinc-300 clears 4.5:1.
                index === activeIndex ? 'dark:text-zinc-300' : 'dark:text-zinc-400',
              )}
            >
              {model.name && model.name !== model.id ? `${model.name} · ` : ''}
              {describeModelPrice(model)}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
