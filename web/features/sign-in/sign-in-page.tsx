/**
 * `/sign-in`: the access token form, shown when the workbench was started with
 * WORKBENCH_ACCESS_TOKEN. The server sends every page here without a session, with `?next=` the
 * page asked for; after signing in the browser goes there (a path on this site only).
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button } from '../../components/button';
import { ErrorPanel } from '../../components/error-panel';
import { LoadingState } from '../../components/states';
import { ApiRequestError } from '../../lib/api-client';
import { useSession } from '../../api/session';
import { useSignIn } from './api/sign-in';
import { leavePageTo } from './leave-page';

/** Where to go after signing in: a path of this site, never another site nor the form again. */
export function safeNextPath(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next === '/sign-in' || next.startsWith('/sign-in?')) return '/';
  return next;
}

export function SignInPage() {
  const [searchParams] = useSearchParams();
  const next = safeNextPath(searchParams.get('next'));
  // Set by the server when a sign-in with the identity provider failed, in words.
  const providerError = searchParams.get('oidc_error');
  const session = useSession();
  const signIn = useSignIn();
  const [token, setToken] = useState('');
  const [emptyTried, setEmptyTried] = useState(false);
  const inputId = useId();
  const errorId = useId();

  useEffect(() => {
    document.title = 'Sign in · Gateway workbench';
  }, []);

  const alreadyIn = session.data?.signed_in === true;
  useEffect(() => {
    if (alreadyIn) leavePageTo(next);
  }, [alreadyIn, next]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (signIn.isPending) return;
    if (token === '') {
      setEmptyTried(true);
      return;
    }
    signIn.mutate(token, {
      onSuccess: () => {
        setToken('');
        leavePageTo(next);
      },
    });
  }

  const wrongToken =
    emptyTried && token === ''
      ? 'Enter the access token.'
      : signIn.error instanceof ApiRequestError && signIn.error.field === 'token'
        ? signIn.error.message
        : null;

  return (
    <main id="main" className="flex min-h-full items-center justify-center px-4 py-10">
      <div className="w-full max-w-sm rounded-xl border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        <p className="text-sm font-semibold tracking-tight">
          <span aria-hidden="true" className="mr-1 text-sky-700 dark:text-sky-400">
            ◆
          </span>
          Gateway workbench
        </p>
        <h1 className="mt-3 text-xl font-semibold tracking-tight">Sign in</h1>
        {session.isPending ? (
          <LoadingState>Checking your session…</LoadingState>
        ) : session.isError ? (
          <div className="mt-3">
            <ErrorPanel
              what="Asking the workbench whether you are signed in"
              error={session.error}
              onRetry={() => void session.refetch()}
            />
          </div>
        ) : !session.data.required ? (
          <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
            This workbench asks for no sign-in: it was started without{' '}
            <code className="font-mono">WORKBENCH_ACCESS_TOKEN</code> and listens on this machine
            only.{' '}
            <Link to="/" className="font-medium text-sky-700 underline dark:text-sky-400">
              Open the workbench
            </Link>
            .
          </p>
        ) : alreadyIn ? (
          <LoadingState>Signed in; opening the workbench…</LoadingState>
        ) : (
          <div className="mt-2 flex flex-col gap-4">
            {providerError && (
              <p role="alert" className="text-sm text-red-700 dark:text-red-400">
                {providerError}
              </p>
            )}
            {session.data.oidc && (
              <div className="flex flex-col gap-2">
                <p className="text-sm text-zinc-700 dark:text-zinc-300">
                  Sign in with your company account; you stay signed in for 12 hours in this
                  browser.
                </p>
                {/* A plain link: the server sends the browser on to the identity provider. */}
                <a
                  href={`${session.data.oidc.sign_in_path}?${new URLSearchParams({ next }).toString()}`}
                  className="inline-flex h-9 items-center justify-center rounded-md bg-sky-700 px-3 text-sm font-medium text-white hover:bg-sky-800"
                >
                  Sign in with your identity provider
                </a>
              </div>
            )}
            {(!session.data.oidc || session.data.oidc.token_sign_in) && (
              <form className="flex flex-col gap-3" onSubmit={submit} noValidate>
                <p className="text-sm text-zinc-700 dark:text-zinc-300">
                  This workbench holds API keys, so it asks for its access token first (the value of{' '}
                  <code className="font-mono">WORKBENCH_ACCESS_TOKEN</code> it was started with).
                  You stay signed in for 12 hours in this browser.
                </p>
                <div className="flex flex-col gap-1">
                  <label htmlFor={inputId} className="text-sm font-medium">
                    Access token
                  </label>
                  <input
                    id={inputId}
                    type="password"
                    name="password"
                    autoComplete="current-password"
                    spellCheck={false}
                    autoFocus
                    required
                    value={token}
                    onChange={(event) => {
                      setToken(event.target.value);
                      setEmptyTried(false);
                      // A new attempt: the last one's refusal no longer describes the field.
                      if (signIn.isError) signIn.reset();
                    }}
                    aria-invalid={wrongToken !== null}
                    aria-describedby={wrongToken ? errorId : undefined}
                    className="h-9 rounded-md border border-zinc-300 bg-white px-2 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-950"
                  />
                  {wrongToken && (
                    <p id={errorId} role="alert" className="text-sm text-red-700 dark:text-red-400">
                      {wrongToken}
                    </p>
                  )}
                </div>
                {signIn.isError && !wrongToken && (
                  <ErrorPanel what="Signing in" error={signIn.error} />
                )}
                <Button type="submit" variant="primary" disabled={signIn.isPending}>
                  {signIn.isPending ? 'Signing in…' : 'Sign in'}
                </Button>
              </form>
            )}
          </div>
        )}
      </div>
    </main>
  );
}
