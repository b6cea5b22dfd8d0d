/**
 * The box at the bottom of the conversation: a message with any role, images (file or paste)
 * for models that take them, and Send (Ctrl/Cmd+Enter) or, while a reply streams, Stop (Esc).
 */
import { useId, useRef, useState, type ClipboardEvent } from 'react';
import { Button } from '../../../components/button';
import type { MessageRole } from '../playground-types';
import { RoleSelect } from './message-item';

/** Images bigger than this are refused: a data URL this size already strains a request. */
export const maximumImageBytes = 5 * 1024 * 1024;

export function readImageAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!file.type.startsWith('image/')) {
      reject(new Error(`${file.name || 'The file'} is not an image.`));
      return;
    }
    if (file.size > maximumImageBytes) {
      reject(new Error(`${file.name || 'The image'} is larger than 5 MB.`));
      return;
    }
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error(`${file.name || 'The image'} could not be read.`));
    reader.readAsDataURL(file);
  });
}

export interface ComposerDraft {
  role: MessageRole;
  text: string;
  images: string[];
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
}: {
  draft: ComposerDraft;
  onDraftChange(draft: ComposerDraft): void;
  running: boolean;
  imagesSupported: boolean;
  /** Why images cannot be attached, when they cannot. */
  imagesReason: string | null;
  /** Why Send would not work now (no model, no profile…), shown beside it. */
  sendDisabledReason: string | null;
  onSend(): void;
  onAdd(): void;
  onStop(): void;
}) {
  const textId = useId();
  const fileId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [imageProblem, setImageProblem] = useState<string | null>(null);

  async function attach(files: File[]) {
    setImageProblem(null);
    const urls: string[] = [];
    for (const file of files) {
      try {
        urls.push(await readImageAsDataUrl(file));
      } catch (error) {
        setImageProblem((error as Error).message);
      }
    }
    if (urls.length > 0) onDraftChange({ ...draft, images: [...draft.images, ...urls] });
  }

  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    const images = Array.from(event.clipboardData.files).filter((file) => file.type.startsWith('image/'));
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
        placeholder={`Write a ${draft.role} message… (Ctrl+Enter sends, Esc stops)`}
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
              <img src={url} alt={`Image ${index + 1} to send`} className="h-16 w-16 rounded border border-zinc-200 object-cover dark:border-zinc-700" />
              <button
                type="button"
                onClick={() => onDraftChange({ ...draft, images: draft.images.filter((_, other) => other !== index) })}
                aria-label={`Remove image ${index + 1}`}
                className="absolute -top-1.5 -right-1.5 rounded-full bg-zinc-800 px-1.5 text-xs text-white dark:bg-zinc-200 dark:text-zinc-900"
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {imageProblem && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {imageProblem}
        </p>
      )}
      <div className="flex flex-wrap items-center gap-2">
        <RoleSelect label="Role" value={draft.role} onChange={(role) => onDraftChange({ ...draft, role })} />
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
        <Button size="small" variant="ghost" disabled={!canAdd || running} onClick={onAdd} title="Add to the conversation without a reply">
          Add
        </Button>
        <div className="ml-auto flex items-center gap-2">
          {sendDisabledReason && !running && (
            <span className="max-w-64 text-right text-xs text-zinc-500 dark:text-zinc-400">{sendDisabledReason}</span>
          )}
          {/* Stop appears beside a disabled Send rather than in its place, so a double click on
              Send can never land on Stop and cut the reply it just started. */}
          {running && (
            <Button key="stop" variant="danger" onClick={onStop} title="Stop the reply (Esc)">
              Stop
            </Button>
          )}
          <Button
            key="send"
            variant="primary"
            onClick={onSend}
            disabled={running || sendDisabledReason !== null}
            title="Send (Ctrl+Enter)"
          >
            Send
          </Button>
        </div>
      </div>
      {!imagesSupported && imagesReason && <p className="sr-only">{imagesReason}</p>}
    </div>
  );
}
