/**
 * A reply still waiting while the gateway does not answer its health check (the banner says
 * so): the reply says it too, in place, with Stop and Keep waiting, instead of waiting in
 * silence for minutes.
 */
import { useState } from 'react';
import { useHealth } from '../../../api/health';
import { Button } from '../../../components/button';

export function HungGatewayNote({ onStop }: { onStop(): void }) {
  const health = useHealth();
  const [keepWaiting, setKeepWaiting] = useState(false);
  if (keepWaiting || health.data?.reachable !== false) return null;
  return (
    <div
      role="alert"
      className="mt-2 flex flex-wrap items-center gap-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <span>
        The gateway does not answer (see the banner above): this reply may not come. Stop it, or
        keep waiting in case the gateway recovers.
      </span>
      <Button size="small" variant="danger" onClick={onStop}>
        Stop
      </Button>
      <Button size="small" onClick={() => setKeepWaiting(true)}>
        Keep waiting
      </Button>
    </div>
  );
}
