import { Suspense } from 'react';
import { NavLink, Outlet, useLocation, useSearchParams } from 'react-router';
import { useSession } from '../api/session';
import { classNames } from '../components/class-names';
import { LoadingState } from '../components/states';
import { SignOutButton } from '../features/sign-in/components/sign-out-button';
import { GatewayStatus } from './gateway-status';
import { PageErrorBoundary } from './page-error-boundary';
import { ProfileProvider, useProfile } from './profile-context';
import { UnknownProfileNotice } from './unknown-profile-notice';
import { ProfileSelect } from './profile-select';

const navigation = [
  { to: '/catalog', label: 'Catalog' },
  { to: '/playground', label: 'Playground' },
  { to: '/keys', label: 'Keys' },
  { to: '/endpoints', label: 'Endpoints' },
  { to: '/activity', label: 'Activity' },
];

/**
 * The pages' links. A `?profile=` in the URL stays on them, so the page a link opens is as
 * shareable as the one it left (also while the profiles load: a link followed then keeps it),
 * unless the BFF holds no such profile. On a phone they sit closer, so the five fit one row at
 * 390 px; a narrower screen (or wider letters) wraps them onto a second row rather than
 * hiding any (a scrolled row cut "Activity" to "Acti", with nothing saying there was more).
 */
function MainNavigation() {
  const { unknownProfile } = useProfile();
  // People appears where people sign in (WORKBENCH_OIDC_ISSUER); elsewhere it is still at /people.
  const peopleOn = useSession().data?.oidc !== undefined;
  const links = peopleOn ? [...navigation, { to: '/people', label: 'People' }] : navigation;
  const [searchParams] = useSearchParams();
  const urlProfile = searchParams.get('profile');
  const search =
    urlProfile !== null && urlProfile !== unknownProfile
      ? `?${new URLSearchParams({ profile: urlProfile }).toString()}`
      : '';
  return (
    <nav aria-label="Main" className="order-3 w-full sm:order-none sm:w-auto">
      <ul className="flex flex-wrap gap-0.5 sm:gap-1">
        {links.map((item) => (
          <li key={item.to}>
            <NavLink
              to={{ pathname: item.to, search }}
              className={({ isActive }) =>
                classNames(
                  'block rounded-md px-1.5 py-1 text-sm font-medium sm:px-2.5 sm:py-1.5',
                  isActive
                    ? 'bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900'
                    : 'text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800',
                )
              }
            >
              {item.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * Shown in place of a page whose code is still loading: on a direct load or reload of a page
 * other than the catalog. Going from one page to another keeps the page one leaves in view
 * until the next one is ready (React Router navigates in a transition).
 */
function PageLoading() {
  return (
    <div className="mx-auto w-full max-w-screen-2xl px-3 py-4 sm:px-6">
      <LoadingState>Loading the page…</LoadingState>
    </div>
  );
}

/** The frame of every page: navigation, the key profile chooser, and the page itself. */
export function AppShell() {
  const { pathname } = useLocation();
  return (
    <ProfileProvider>
      <div className="flex min-h-full flex-col">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow dark:focus:bg-zinc-900"
        >
          Skip to content
        </a>
        {/* Opaque: a see-through header let the page's text show through it as it scrolled under.
            On a phone its two rows sit tight, so it keeps under a tenth of the screen. */}
        <header className="sticky top-0 z-30 border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950">
          <div className="mx-auto flex max-w-screen-2xl flex-wrap items-center gap-x-4 gap-y-1 px-3 py-1 sm:gap-y-2 sm:px-6 sm:py-2">
            <span className="text-sm font-semibold tracking-tight">
              <span aria-hidden="true" className="mr-1 text-sky-700 dark:text-sky-400">
                ◆
              </span>
              Gateway workbench
            </span>
            <MainNavigation />
            <div className="ml-auto">
              <ProfileSelect />
            </div>
            <SignOutButton />
          </div>
        </header>
        <GatewayStatus />
        <UnknownProfileNotice />
        <main id="main" className="flex flex-1 flex-col">
          <PageErrorBoundary resetKey={pathname}>
            <Suspense fallback={<PageLoading />}>
              <Outlet />
            </Suspense>
          </PageErrorBoundary>
        </main>
      </div>
    </ProfileProvider>
  );
}
