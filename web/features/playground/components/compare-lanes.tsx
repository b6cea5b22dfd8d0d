/**
 * A compare run: the same conversation and parameters sent to two or three models at once, each
 * reply in its own column with its own metrics. One reply can be kept to continue with; a new
 * message asks which one it follows.
 */
import { useId } from 'react';
import type { CatalogModel } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { CopyButton } from '../../../components/copy-button';
import type { CompareLane, RunRecord } from '../playground-types';
import { ReplyBody } from './reply-body';

export function CompareLanes({
  lanes,
  findModel,
  running,
  onKeep,
  onShowRaw,
  onShowCode,
}: {
  lanes: CompareLane[];
  findModel(id: string): CatalogModel | undefined;
  running: boolean;
  onKeep(replyId: string): void;
  onShowRaw(run: RunRecord): void;
  onShowCode(run: RunRecord): void;
}) {
  if (lanes.length === 0) return null;
  return (
    <section aria-label="Compare results" className="flex flex-col gap-2">
      <h2 className="text-sm font-semibold">
        Compare: {lanes.length} models on the same conversation
      </h2>
      <ul className={`grid gap-3 ${lanes.length === 3 ? 'lg:grid-cols-3' : 'md:grid-cols-2'}`}>
        {lanes.map((lane, index) => (
          <li
            key={lane.reply?.id ?? index}
            aria-label={`Reply of ${lane.model}`}
            className="flex min-w-0 flex-col gap-2 rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900/40"
          >
            <div className="flex flex-wrap items-center gap-2">
              <h3 className="min-w-0 truncate font-mono text-sm font-semibold">{lane.model}</h3>
              {lane.reply?.run && lane.reply.run.status !== 'streaming' && (
                <div className="ml-auto flex gap-1">
                  {lane.reply.text !== '' && (
                    <CopyButton
                      variant="ghost"
                      text={lane.reply.text}
                      label={`Copy reply of ${lane.model}`}
                    />
                  )}
                  <Button
                    size="small"
                    variant="ghost"
                    onClick={() => lane.reply?.run && onShowRaw(lane.reply.run)}
                    aria-label={`Raw exchange of ${lane.model}`}
                  >
                    Raw
                  </Button>
                  <Button
                    size="small"
                    variant="ghost"
                    onClick={() => lane.reply?.run && onShowCode(lane.reply.run)}
                    aria-label={`Code for ${lane.model}`}
                  >
                    Code
                  </Button>
                </div>
              )}
            </div>
            {lane.reply ? (
              <ReplyBody
                message={lane.reply}
                model={findModel(lane.model)}
                copyLabel={`reply of ${lane.model}`}
              />
            ) : (
              <p className="text-sm">Not sent.</p>
            )}
            {lane.reply && lane.reply.run?.status !== 'error' && (
              <div>
                <Button
                  size="small"
                  disabled={running}
                  onClick={() => lane.reply && onKeep(lane.reply.id)}
                  aria-label={`Continue with ${lane.model}`}
                >
                  Continue with this reply
                </Button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * Asked when a new message is sent (or added) after a compare run: the conversation goes on
 * from one reply, so the new message never follows the last one straight after another user
 * turn, and no reply is thrown away unasked.
 */
export function ContinueChoicePanel({
  lanes,
  action,
  onChoose,
  onCancel,
}: {
  lanes: CompareLane[];
  action: 'send' | 'add';
  onChoose(replyId: string): void;
  onCancel(): void;
}) {
  const headingId = useId();
  return (
    <section
      role="group"
      aria-labelledby={headingId}
      className="flex flex-col gap-2 rounded-lg border border-sky-300 bg-sky-50 p-3 text-sm dark:border-sky-800 dark:bg-sky-950/40"
    >
      <h3 id={headingId} className="font-semibold">
        Which reply should your message follow?
      </h3>
      <p className="text-xs text-zinc-700 dark:text-zinc-300">
        The compared replies are not in the conversation yet. The one you pick joins it, its model
        becomes the chosen one, and your message{' '}
        {action === 'send' ? 'is sent after it' : 'is added after it'}.
      </p>
      <div className="flex flex-wrap gap-2">
        {lanes.map((lane) =>
          lane.reply ? (
            <Button
              key={lane.reply.id}
              size="small"
              variant="primary"
              onClick={() => lane.reply && onChoose(lane.reply.id)}
            >
              Follow the reply of {lane.model}
            </Button>
          ) : null,
        )}
        <Button size="small" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </section>
  );
}
