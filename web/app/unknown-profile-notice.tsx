import { Button } from '../components/button';
import { useProfile } from './profile-context';

/** Says that the URL's `?profile=` names no profile the workbench holds, and which is shown. */
export function UnknownProfileNotice() {
  const { unknownProfile, profile, profiles, forgetUnknownProfile } = useProfile();
  if (unknownProfile === null) return null;
  return (
    <div
      role="status"
      className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-950 sm:px-6 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100"
    >
      <p className="min-w-0">
        The link asks for the key profile{' '}
        <strong className="font-mono break-all">“{unknownProfile}”</strong>, which is unknown
        {profile ? (
          <>
            : showing <strong className="font-mono">“{profile}”</strong> instead.
          </>
        ) : (
          '.'
        )}{' '}
        Known profiles: {profiles.map((candidate) => candidate.name).join(', ') || 'none'}.
      </p>
      <Button size="small" onClick={forgetUnknownProfile}>
        Dismiss
      </Button>
    </div>
  );
}
