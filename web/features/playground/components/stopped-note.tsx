/**
 * What a Stop did. Usually it cut the reply ("Stopped — partial reply"); but Stop pressed at the
 * very end can land after the gateway finished the answer, and then its record says `completed`
 * and charges the whole answer: the note says so rather than call it partial.
 */
import { Badge } from '../../../components/badge';
import { useGenerationCharge } from '../api/generation';
import { chargeLookup } from '../metrics';
import type { ConversationMessage } from '../playground-types';

export function StoppedNote({ message }: { message: ConversationMessage }) {
  const run = message.run;
  // The same query as the reply's figures: React Query asks the BFF once for both.
  const charge = useGenerationCharge(run ? chargeLookup(run, message.text) : null).data;
  if (run?.status !== 'stopped') return null;
  if (charge?.outcome === 'completed') {
    return (
      <p className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
        <Badge tone="sky">Completed before Stop took effect</Badge>
        <span>
          The gateway finished the answer and charged all{' '}
          {charge.completion_tokens.toLocaleString('en-US')} completion tokens; the end of the text
          did not reach the page before Stop closed the stream.
        </span>
      </p>
    );
  }
  return (
    <p className="mt-2">
      <Badge tone="amber">Stopped — partial reply</Badge>
    </p>
  );
}
