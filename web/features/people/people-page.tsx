/**
 * `/people`: a person's own key (with Hand over), and for admins everyone who signed in with
 * OpenID Connect and the audit log of changes. Without people's sign-in it says how to turn it on.
 */
import { useSession } from '../../api/session';
import { EmptyState, LoadingState } from '../../components/states';
import { ErrorPanel } from '../../components/error-panel';
import { PageLayout } from '../../components/page-layout';
import { useAudit } from './api/audit';
import { useMe } from './api/me';
import { usePeople } from './api/people';
import { AuditDownloads, AuditTable } from './components/audit-table';
import { OwnKeyPanel } from './components/own-key-panel';
import { PeopleTable } from './components/people-table';
import { PolicyForm } from './components/policy-form';

export function PeoplePage() {
  const session = useSession();
  const isPerson = session.data?.person !== undefined;
  // Without people's sign-in whoever is in (the access token, or this machine) is an admin.
  const isAdmin =
    session.data !== undefined &&
    (session.data.oidc === undefined || session.data.role === 'admin');
  const peopleOn = session.data?.oidc !== undefined;
  const me = useMe(isPerson);
  const people = usePeople(peopleOn && isAdmin);
  const audit = useAudit(isAdmin);

  return (
    <PageLayout
      title="People"
      description={
        !peopleOn
          ? 'Changes made to keys through this workbench.'
          : isAdmin
            ? 'Who signed in, their own keys and what they spent this period.'
            : 'Your own key: what it may spend and use, and how to take it to your tools.'
      }
    >
      {session.isPending && <LoadingState>Checking your session…</LoadingState>}
      {session.isError && <ErrorPanel what="Reading your session" error={session.error} />}
      {isPerson &&
        (me.isPending ? (
          <LoadingState>Loading your key…</LoadingState>
        ) : me.isError ? (
          <ErrorPanel what="Loading your key" error={me.error} onRetry={() => void me.refetch()} />
        ) : (
          <OwnKeyPanel person={me.data} />
        ))}
      {peopleOn && isAdmin && (
        <section aria-labelledby="people-heading" className="flex flex-col gap-2">
          <h2 id="people-heading" className="text-base font-semibold">
            Everyone
          </h2>
          {people.isPending ? (
            <LoadingState>Loading people…</LoadingState>
          ) : people.isError ? (
            <ErrorPanel
              what="Loading people"
              error={people.error}
              onRetry={() => void people.refetch()}
            />
          ) : people.data.people.length === 0 ? (
            <EmptyState title="Nobody has signed in yet">
              People appear here after their first sign-in.
            </EmptyState>
          ) : (
            <PeopleTable people={people.data.people} />
          )}
        </section>
      )}
      {peopleOn && isAdmin && people.data && (
        <PolicyForm
          // A new policy from the server (another admin's) resets the form's fields.
          key={JSON.stringify(people.data.default_policy)}
          policy={people.data.default_policy}
          source={people.data.policy_source}
        />
      )}
      {!peopleOn && session.isSuccess && (
        <p className="text-sm text-zinc-700 dark:text-zinc-300">
          People sign in with your identity provider when the workbench is started with{' '}
          <code className="font-mono">WORKBENCH_OIDC_ISSUER</code> (see docs/workbench.md,
          “People”).
        </p>
      )}
      {isAdmin && (
        <section aria-labelledby="audit-heading" className="flex flex-col gap-2">
          <div className="flex flex-wrap items-end justify-between gap-2">
            <h2 id="audit-heading" className="text-base font-semibold">
              Audit log
            </h2>
            <AuditDownloads />
          </div>
          {audit.isPending ? (
            <LoadingState>Loading the audit log…</LoadingState>
          ) : audit.isError ? (
            <ErrorPanel
              what="Loading the audit log"
              error={audit.error}
              onRetry={() => void audit.refetch()}
            />
          ) : audit.data.entries.length === 0 ? (
            <EmptyState title="No changes yet" />
          ) : (
            <AuditTable entries={audit.data.entries} />
          )}
        </section>
      )}
    </PageLayout>
  );
}
