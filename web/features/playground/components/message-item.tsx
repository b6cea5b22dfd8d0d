/**
 * One message of the conversation: shown, edited in place (text and role), deleted, or used as
 * the point to re-run from.
 */
import { useId, useState } from 'react';
import type { CatalogModel } from '../../../../contract/workbench-api';
import { Badge, type BadgeTone } from '../../../components/badge';
import { Button } from '../../../components/button';
import { classNames } from '../../../components/class-names';
import { CopyButton } from '../../../components/copy-button';
import type { ConversationMessage, MessageRole, RunRecord } from '../playground-types';
import { messageLimits } from '../long-text';
import { FoldedText } from './folded-text';
import { MarkdownContent } from './markdown-content';
import { ReplyBody } from './reply-body';

export const roleTones: Record<MessageRole, BadgeTone> = {
  system: 'neutral',
  user: 'sky',
  assistant: 'green',
  tool: 'violet',
};

export const messageRoles: MessageRole[] = ['user', 'assistant', 'system', 'tool'];

export function RoleSelect({
  value,
  onChange,
  label,
  roles = messageRoles,
  className,
}: {
  value: MessageRole;
  onChange(role: MessageRole): void;
  label: string;
  /** The roles offered; `tool` only where there is a tool call to answer. */
  roles?: readonly MessageRole[];
  className?: string;
}) {
  return (
    <select
      aria-label={label}
      value={value}
      onChange={(event) => onChange(event.target.value as MessageRole)}
      className={classNames(
        'h-8 rounded-md border border-zinc-300 bg-white px-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900',
        className,
      )}
    >
      {roles.map((role) => (
        <option key={role} value={role}>
          {role}
        </option>
      ))}
    </select>
  );
}

export interface MessageItemProps {
  message: ConversationMessage;
  /** 1-based position, used in the controls' names ("Edit turn 3"). */
  position: number;
  model: CatalogModel | undefined;
  /** True while a reply streams: the conversation is not edited under it. */
  locked: boolean;
  onEdit(changes: { text: string; role: MessageRole }): void;
  onDelete(): void;
  onRerun(): void;
  /** A failed reply: drop it with the user turn it answered. */
  onDiscard?(): void;
  /** Stops the reply while it streams. */
  onStop?(): void;
  onRemoveImage(index: number): void;
  onShowRaw(run: RunRecord): void;
  onShowCode(run: RunRecord): void;
}

export function MessageItem({
  message,
  position,
  model,
  locked,
  onEdit,
  onDelete,
  onRerun,
  onDiscard,
  onStop,
  onRemoveImage,
  onShowRaw,
  onShowCode,
}: MessageItemProps) {
  const editorId = useId();
  const [editing, setEditing] = useState(false);
  const [draftText, setDraftText] = useState(message.text);
  const [draftRole, setDraftRole] = useState<MessageRole>(message.role);
  const turn = `turn ${position}`;
  const isReply = message.role === 'assistant' && message.run !== undefined;

  function startEditing() {
    setDraftText(message.text);
    setDraftRole(message.role);
    setEditing(true);
  }

  return (
    <li
      aria-label={`${message.role} ${turn}`}
      className={classNames(
        'group rounded-lg border p-3',
        message.role === 'user'
          ? 'border-sky-200 bg-sky-50/50 dark:border-sky-900 dark:bg-sky-950/20'
          : 'border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40',
      )}
    >
      <div className="mb-1.5 flex flex-wrap items-center gap-2">
        {/* While editing, the role select below says the role: the badge would say it twice. */}
        {!editing && <Badge tone={roleTones[message.role]}>{message.role}</Badge>}
        {message.run && (
          <span className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">
            {message.run.model}
          </span>
        )}
        {message.role === 'tool' && (message.name || message.toolCallId) && (
          <span className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">
            {message.name ?? ''} {message.toolCallId ? `← ${message.toolCallId}` : ''}
          </span>
        )}
        <div className="ml-auto flex flex-wrap gap-1">
          {message.run && message.run.status !== 'streaming' && (
            <>
              {message.text !== '' && (
                <CopyButton variant="ghost" text={message.text} label={`Copy reply of ${turn}`} />
              )}
              <Button
                size="small"
                variant="ghost"
                onClick={() => message.run && onShowRaw(message.run)}
                aria-label={`Raw request and response of ${turn}`}
              >
                Raw
              </Button>
              <Button
                size="small"
                variant="ghost"
                onClick={() => message.run && onShowCode(message.run)}
                aria-label={`Code for ${turn}`}
              >
                Code
              </Button>
            </>
          )}
          {!editing && (
            <>
              <Button
                size="small"
                variant="ghost"
                disabled={locked}
                onClick={startEditing}
                aria-label={`Edit ${turn}`}
              >
                Edit
              </Button>
              <Button
                size="small"
                variant="ghost"
                disabled={locked}
                onClick={onRerun}
                aria-label={`Re-run from ${turn}`}
                title={
                  isReply
                    ? 'Regenerate this reply'
                    : 'Answer again from this point; later turns are dropped'
                }
              >
                Re-run
              </Button>
              <Button
                size="small"
                variant="ghost"
                disabled={locked}
                onClick={onDelete}
                aria-label={`Delete ${turn}`}
              >
                Delete
              </Button>
            </>
          )}
        </div>
      </div>

      {editing ? (
        <form
          className="flex flex-col gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            onEdit({ text: draftText, role: draftRole });
            setEditing(false);
          }}
        >
          <div className="flex items-center gap-2">
            <RoleSelect
              label={`Role of ${turn}`}
              value={draftRole}
              onChange={setDraftRole}
              // A message becomes a tool result only with the call it answers, which an edit
              // cannot give: `tool` is offered only to a message that already is one.
              roles={
                message.role === 'tool'
                  ? messageRoles
                  : messageRoles.filter((role) => role !== 'tool')
              }
            />
          </div>
          <label htmlFor={editorId} className="sr-only">
            Text of {turn}
          </label>
          <textarea
            id={editorId}
            value={draftText}
            onChange={(event) => setDraftText(event.target.value)}
            rows={Math.min(12, Math.max(3, draftText.split('\n').length + 1))}
            className="w-full rounded-md border border-zinc-300 bg-white p-2 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-950"
          />
          <div className="flex gap-2">
            <Button type="submit" variant="primary" size="small">
              Save
            </Button>
            <Button size="small" onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : isReply ? (
        <>
          <ReplyBody message={message} model={model} copyLabel={turn} onStop={onStop} />
          {message.run?.status === 'error' && !locked && (
            // A failed turn is never sent again unasked: the person retries or discards it.
            <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
              <span>This turn is left out of later requests until you retry or discard it.</span>
              <Button size="small" onClick={onRerun} aria-label={`Retry ${turn}`}>
                Retry
              </Button>
              {onDiscard && (
                <Button
                  size="small"
                  variant="ghost"
                  onClick={onDiscard}
                  aria-label={`Discard ${turn}`}
                >
                  Discard
                </Button>
              )}
            </div>
          )}
        </>
      ) : (
        <>
          {message.text !== '' && (
            <FoldedText text={message.text} limits={messageLimits}>
              {(shown) =>
                message.role === 'assistant' ? (
                  <MarkdownContent text={shown} codeCopyLabel={turn} />
                ) : (
                  <p className="text-sm break-words whitespace-pre-wrap">{shown}</p>
                )
              }
            </FoldedText>
          )}
          {message.toolCalls && message.toolCalls.length > 0 && (
            <p className="mt-1 font-mono text-xs text-zinc-500">
              Tool calls: {message.toolCalls.map((call) => call.function.name).join(', ')}
            </p>
          )}
        </>
      )}

      {message.images.length > 0 && (
        <ul className="mt-2 flex flex-wrap gap-2" aria-label={`Images of ${turn}`}>
          {message.images.map((url, index) => (
            <li key={index} className="relative">
              <img
                src={url}
                alt={`Attached image ${index + 1}`}
                className="h-20 w-20 rounded border border-zinc-200 object-cover dark:border-zinc-700"
              />
              {!locked && (
                <button
                  type="button"
                  onClick={() => onRemoveImage(index)}
                  aria-label={`Remove image ${index + 1} of ${turn}`}
                  className="absolute -top-1.5 -right-1.5 rounded-full bg-zinc-800 px-1.5 text-xs text-white dark:bg-zinc-200 dark:text-zinc-900"
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
