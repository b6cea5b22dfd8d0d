/**
 * The box at the bottom of the conversation: a message with any role, images (file or paste)
 * for models that take them, and Send (Ctrl/Cmd+Enter) or, while a reply streams, Stop (Esc) in
 * its place. The page pins it to the bottom of the viewport, so Stop stays under the hand.
 * A `tool` message answers one of the conversation's open tool calls, so that role is offered
 * only while there is one.
 */
import { useId, useRef, useState, type ClipboardEvent } from 'react';
import { Button } from '../../../components/button';
import { readImageAsDataUrl } from '../image-files';
import type { MessageRole, ToolCall } from '../playground-types';
import { ContextMeter } from './context-meter';
import { messageRoles, RoleSelect } from './message-item';

export interface ComposerDraft {
  role: MessageRole;
  text: string;
  images: string[];
  /** For the `tool` role: the open tool call this message answers. */
  toolCallId?: string;
}

/**
 * The draft as it would be sent: a `tool` draft answers the call it chose while that call is
 * still open, else the oldest open one; with no open call left it is a user message.
 */
export function resolveDraft(draft: ComposerDraft, openToolCalls: ToolCall[]): ComposerDraft {
  if (draft.role !== 'tool') return { ...draft, toolCallId: undefined };
  const call =
    openToolCalls.find((candidate) => candidate.id === draft.toolCallId) ?? openToolCalls[0];
  return call
    ? { ...draft, toolCallId: call.id }
    : { ...draft, role: 'user', toolCallId: undefined };
}

/** "a user message", "an assistant message": by the sound, so "a user", not "an user". */
function withArticle(role: MessageRole): string {
  return `${role === 'assistant' ? 'an' : 'a'} ${role}`;
}

export function Composer({
  draft,
  onDraftChange,
  running,
  imagesSupported,
  imagesReason,
  sendDisabledReason,
  onSend,
  onAdd,
  onStop,
  openToolCalls,
  promptEstimate,
}: {
  draft: ComposerDraft;
  onDraftChange(draft: ComposerDraft): void;
  running: boolean;
  imagesSupported: boolean;
  /** Why images cannot be attached, when they cannot. */
  imagesReason: string | null;
  /** Tool calls of the conversation no `tool` message answers yet. */
  openToolCalls: ToolCall[];
  /** Why Send would not work now (no model, no profile…), shown beside it. */
  sendDisabledReason: string | null;
  onSend(): void;
  onAdd(): void;
  onStop(): void;
  /** The prompt's estimated size, with the draft, against the model's context window. */
  promptEstimate: { tokens: number; counted: boolean; contextLength: number | null };
}) {
  const textId = useId();
  const fileId = useId();
  const toolCallSelectId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [imageProblem, setImageProblem] = useState<string | null>(null);
  const roles =
    openToolCalls.length > 0 ? messageRoles : messageRoles.filter((role) => role !== 'tool');
  const resolved = resolveDraft(draft, openToolCalls);
  const imagesUnsendable = draft.images.length > 0 && !imagesSupported;

  function changeRole(role: MessageRole) {
    onDraftChange(resolveDraft({ ...draft, role }, openToolCalls));
  }

  async function attach(files: File[]) {
    setImageProblem(null);
    const urls: string[] = [];
    const problems: string[] = [];
    for (const file of files) {
      try {
        urls.push(await readImageAsDataUrl(file));
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    setImageProblem(problems.length > 0 ? problems.join(' ') : null);
    if (urls.length > 0) onDraftChange({ ...draft, images: [...draft.images, ...urls] });
  }

  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    // Pasted files are checked by their content when attached; the type here only tells an
    // image paste from a text paste.
    const images = Array.from(event.clipboardData.files).filter((file) =>
      file.type.startsWith('image/'),
    );
    if (images.length === 0) return;
    if (!imagesSupported) {
      setImageProblem(imagesReason ?? 'This model does not take images.');
      return;
    }
    // The pasted image is attached; any text pasted with it is kept by not preventing the rest.
    if (event.clipboardData.getData('text/plain') === '') event.preventDefault();
    void attach(images);
  }

  const canAdd = draft.text.trim() !== '' || draft.images.length > 0;
  return (
    // The textarea draws no outline of its own, so the box around it shows keyboard focus.
    <div className="flex flex-col gap-2 rounded-lg border border-zinc-300 bg-white p-2 shadow-sm has-[textarea:focus-visible]:border-sky-600 has-[textarea:focus-visible]:ring-2 has-[textarea:focus-visible]:ring-sky-600/60 dark:border-zinc-700 dark:bg-zinc-900 dark:has-[textarea:focus-visible]:border-sky-400 dark:has-[textarea:focus-visible]:ring-sky-400/60">
      <label htmlFor={textId} className="sr-only">
        Message
      </label>
      <textarea
        id={textId}
        value={draft.text}
        placeholder={`Write ${withArticle(resolved.role)} message… (Ctrl+Enter sends, Esc stops)`}
        rows={3}
        onChange={(event) => onDraftChange({ ...draft, text: event.target.value })}
        onPaste={onPaste}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            if (!running) onSend();
          }
        }}
        className="min-h-20 w-full resize-y rounded-md bg-transparent p-1.5 text-sm outline-none focus-visible:outline-none"
      />
      {draft.images.length > 0 && (
        <ul className="flex flex-wrap gap-2" aria-label="Images to send">
          {draft.images.map((url, index) => (
            <li key={index} className="relative">
              <img
                src={url}
                alt={`Image ${index + 1} to send`}
                className="h-16 w-16 rounded border border-zinc-200 object-cover dark:border-zinc-700"
              />
              <button
                type="button"
                onClick={() =>
                  onDraftChange({
                    ...draft,
                    images: draft.images.filter((_, other) => other !== index),
                  })
                }
                aria-label={`Remove image ${index + 1}`}
                className="absolute -top-1.5 -right-1.5 rounded-full bg-zinc-800 px-1.5 text-xs text-white dark:bg-zinc-200 dark:text-zinc-900"
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {imagesUnsendable && (
        <div
          role="alert"
          className="flex flex-wrap items-center gap-2 text-xs text-amber-900 dark:text-amber-200"
        >
          <span>
            {draft.images.length === 1 ? 'This image' : `These ${draft.images.length} images`}{' '}
            cannot be sent: {imagesReason ?? 'this model does not take images.'}
          </span>
          <Button size="small" onClick={() => onDraftChange({ ...draft, images: [] })}>
            Remove {draft.images.length === 1 ? 'the image' : 'the images'}
          </Button>
        </div>
      )}
      {imageProblem && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {imageProblem}
        </p>
      )}
      <div className="flex flex-wrap items-center gap-2">
        <RoleSelect label="Role" value={resolved.role} roles={roles} onChange={changeRole} />
        {resolved.role === 'tool' && (
          <span className="flex items-center gap-1.5 text-xs">
            <label htmlFor={toolCallSelectId}>Answers</label>
            <select
              id={toolCallSelectId}
              value={resolved.toolCallId}
              onChange={(event) => onDraftChange({ ...draft, toolCallId: event.target.value })}
              className="h-8 max-w-56 rounded-md border border-zinc-300 bg-white px-1.5 font-mono text-xs dark:border-zinc-700 dark:bg-zinc-900"
            >
              {openToolCalls.map((call) => (
                <option key={call.id} value={call.id}>
                  {call.function.name} ({call.id})
                </option>
              ))}
            </select>
          </span>
        )}
        <input
          ref={fileInput}
          id={fileId}
          type="file"
          accept="image/*"
          multiple
          className="sr-only"
          tabIndex={-1}
          aria-hidden="true"
          onChange={(event) => {
            const files = Array.from(event.target.files ?? []);
            event.target.value = '';
            void attach(files);
          }}
        />
        <Button
          size="small"
          disabled={!imagesSupported}
          title={imagesReason ?? 'Attach images (or paste them into the message)'}
          onClick={() => fileInput.current?.click()}
        >
          Attach image
        </Button>
        <Button
          size="small"
          variant="ghost"
          disabled={!canAdd || running}
          onClick={onAdd}
          title="Add to the conversation without a reply"
        >
          Add
        </Button>
        <div className="ml-auto flex flex-wrap items-center justify-end gap-2">
          <ContextMeter
            tokens={promptEstimate.tokens}
            counted={promptEstimate.counted}
            contextLength={promptEstimate.contextLength}
          />
          {sendDisabledReason && !running && (
            <span className="max-w-64 text-right text-xs text-zinc-500 dark:text-zinc-400">
              {sendDisabledReason}
            </span>
          )}
          {/* Stop takes Send's place, where the hand already is. The second click of a double
              click on Send (`detail` 2) lands on Stop: it is ignored, so it cannot cut the reply
              it just started. */}
          {running ? (
            <Button
              key="stop"
              variant="danger"
              onClick={(event) => {
                if (event.detail > 1) return;
                onStop();
              }}
              title="Stop the reply (Esc)"
            >
              Stop
            </Button>
          ) : (
            <Button
              key="send"
              variant="primary"
              onClick={onSend}
              disabled={sendDisabledReason !== null}
              title="Send (Ctrl+Enter)"
            >
              Send
            </Button>
          )}
        </div>
      </div>
      {!imagesSupported && imagesReason && <p className="sr-only">{imagesReason}</p>}
    </div>
  );
}
