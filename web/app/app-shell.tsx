import { NavLink, Outlet } from 'react-router';
import { classNames } from '../components/class-names';
import { SignOutButton } from '../features/sign-in/components/sign-out-button';
import { GatewayStatus } from './gateway-status';
import { ProfileProvider } from './profile-context';
import { UnknownProfileNotice } from './unknown-profile-notice';
import { ProfileSelect } from './profile-select';

const navigation = [
  { to: '/catalog', label: 'Catalog' },
  { to: '/playground', label: 'Playground' },
  { to: '/keys', label: 'Keys' },
  { to: '/endpoints', label: 'Endpoints' },
  { to: '/activity', label: 'Activity' },
];

/** The frame of every page: navigation, the key profile chooser, and the page itself. */
export function AppShell() {
  return (
    <ProfileProvider>
      <div className="flex min-h-full flex-col">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow dark:focus:bg-zinc-900"
        >
          Skip to content
        </a>
        <header className="sticky top-0 z-30 border-b border-zinc-200 bg-white/90 backdrop-blur dark:border-zinc-800 dark:bg-zinc-950/90">
          <div className="mx-auto flex max-w-screen-2xl flex-wrap items-center gap-x-4 gap-y-2 px-3 py-2 sm:px-6">
            <span className="text-sm font-semibold tracking-tight">
              <span aria-hidden="true" className="mr-1 text-sky-700 dark:text-sky-400">
                ◆
              </span>
              Gateway workbench
            </span>
            <nav aria-label="Main" className="order-3 w-full sm:order-none sm:w-auto">
              <ul className="flex gap-1 overflow-x-auto">
                {navigation.map((item) => (
                  <li key={item.to}>
                    <NavLink
                      to={item.to}
                      className={({ isActive }) =>
                        classNames(
                          'block rounded-md px-2.5 py-1.5 text-sm font-medium',
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
            <div className="ml-auto">
              <ProfileSelect />
            </div>
            <SignOutButton />
          </div>
        </header>
        <GatewayStatus />
        <UnknownProfileNotice />
        <main id="main" className="flex flex-1 flex-col">
          <Outlet />
        </main>
      </div>
    </ProfileProvider>
  );
}
