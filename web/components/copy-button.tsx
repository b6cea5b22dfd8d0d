import { useEffect, useState } from 'react';
import { Button, type ButtonProps } from './button';

/**
 * Copies `text` to the clipboard and says so for a moment. `label` names what is copied, so
 * screen readers hear "Copy model id", not just "Copy".
 */
export function CopyButton({
  text,
  label,
  children,
  onCopied,
  ...props
}: { text: string; label: string; onCopied?: () => void } & Omit<ButtonProps, 'onClick'>) {
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (status === 'idle') return;
    const timer = window.setTimeout(() => setStatus('idle'), 1500);
    return () => window.clearTimeout(timer);
  }, [status]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setStatus('copied');
      onCopied?.();
    } catch {
      // Clipboard access needs a secure context or permission; say so rather than fail silently.
      setStatus('failed');
    }
  }

  // While it says "Copied", the visible word is the name: a label it does not contain would fail
  // WCAG 2.5.3 (label in name) for people who speak to their computer.
  return (
    <Button
      size="small"
      aria-label={status === 'idle' ? label : undefined}
      onClick={() => void copy()}
      {...props}
    >
      {status === 'copied' ? 'Copied' : status === 'failed' ? 'Copy failed' : (children ?? 'Copy')}
      <span role="status" className="sr-only">
        {status === 'copied'
          ? 'Copied to the clipboard'
          : status === 'failed'
            ? 'Could not copy'
            : ''}
      </span>
    </Button>
  );
}
