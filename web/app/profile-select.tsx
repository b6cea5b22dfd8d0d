import { Select } from 'radix-ui';
import { useId, useState } from 'react';
import { useInertOutside } from '../lib/use-inert-outside';
import { useProfiles } from '../api/profiles';
import { useProfile } from './profile-context';

const identityNames: Record<string, string> = {
  account: 'account',
  allocated_child: 'allocated child',
  shared_child: 'shared child',
};

/** The combobox `Key` that chooses the key profile on every page. Shows names, never keys. */
export function ProfileSelect() {
  const { profile, setProfile, profiles } = useProfile();
  const profilesQuery = useProfiles();
  const labelId = useId();
  // Radix hides the page from screen readers while the list is open; inert keeps Tab out too.
  const [open, setOpen] = useState(false);
  const [listNode, setListNode] = useState<HTMLDivElement | null>(null);
  useInertOutside(open ? listNode : null);
  const placeholder = profilesQuery.isPending
    ? 'Loading…'
    : profilesQuery.isError
      ? 'Profiles unavailable'
      : 'No key profiles';

  return (
    <div className="flex items-center gap-2">
      <span id={labelId} className="text-sm text-zinc-600 dark:text-zinc-400">
        Key
      </span>
      <Select.Root
        value={profile ?? ''}
        onValueChange={setProfile}
        open={open}
        onOpenChange={setOpen}
        disabled={profiles.length === 0}
      >
        <Select.Trigger
          aria-labelledby={labelId}
          title={profilesQuery.isError ? profilesQuery.error.message : undefined}
          className="inline-flex h-8 max-w-56 min-w-36 items-center justify-between gap-2 rounded-md border border-zinc-300 bg-white px-2 text-sm hover:bg-zinc-50 disabled:opacity-70 data-[placeholder]:text-zinc-600 dark:data-[placeholder]:text-zinc-400 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800"
        >
          <span className="truncate">
            <Select.Value placeholder={placeholder} />
          </span>
          <Select.Icon aria-hidden="true" className="text-zinc-500">
            ▾
          </Select.Icon>
        </Select.Trigger>
        <Select.Portal>
          <Select.Content
            ref={setListNode}
            position="popper"
            sideOffset={4}
            align="end"
            className="z-50 max-h-80 min-w-[var(--radix-select-trigger-width)] overflow-hidden rounded-md border border-zinc-200 bg-white shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
          >
            <Select.Viewport className="p-1">
              {profiles.map((candidate) => (
                <Select.Item
                  key={candidate.name}
                  value={candidate.name}
                  // Named by all it shows, the masked key and kind too, not by the name alone
                  // (Radix's default): the visible words are part of the name (WCAG 2.5.3).
                  aria-labelledby={undefined}
                  className="flex cursor-default flex-col rounded px-2 py-1.5 text-sm outline-none select-none data-[highlighted]:bg-sky-100 data-[state=checked]:font-semibold dark:data-[highlighted]:bg-sky-900"
                >
                  <Select.ItemText>{candidate.name}</Select.ItemText>{' '}
                  <span className="font-mono text-xs text-zinc-600 dark:text-zinc-300">
                    {candidate.masked_key}
                    {candidate.identity
                      ? ` · ${identityNames[candidate.identity] ?? candidate.identity}`
                      : ''}
                  </span>
                </Select.Item>
              ))}
            </Select.Viewport>
          </Select.Content>
        </Select.Portal>
      </Select.Root>
    </div>
  );
}
