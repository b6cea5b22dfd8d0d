/**
 * Sign out, shown in the header while this browser has a workbench session. The session cookie
 * is httpOnly, so the page knows of it only through a flag cookie the server sets beside it
 * (`workbench_signed_in=1`, which grants nothing); without sign-in there is no flag and no button.
 */
import { useState } from 'react';
import { Button } from '../../../components/button';
import { useSignOut } from '../api/sign-out';
import { leavePageTo } from '../leave-page';
import { useSessionEndRedirect } from '../use-session-end-redirect';

export const signedInFlagCookie = 'workbench_signed_in';

function hasSignedInFlag(): boolean {
  return document.cookie
    .split(';')
    .some((part) => part.trim().startsWith(`${signedInFlagCookie}=`));
}

/** Also watches every request: one refused for want of a session goes back to the form. */
export function SignOutButton() {
  useSessionEndRedirect();
  const [signedIn] = useState(hasSignedInFlag);
  const signOut = useSignOut();
  if (!signedIn) return null;
  return (
    <Button
      variant="ghost"
      disabled={signOut.isPending}
      onClick={() =>
        signOut.mutate(undefined, {
          // Even a failed sign-out goes to the form: the server clears what it can.
          onSettled: () => leavePageTo('/sign-in'),
        })
      }
    >
      Sign out
    </Button>
  );
}
