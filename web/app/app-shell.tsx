import { NavLink, Outlet } from 'react-router';
import { useHealth } from '../api/health';
import { classNames } from '../components/class-names';
import { ProfileProvider } from './profile-context';
import { ProfileSelect } from './profile-select';

const navigation = [
  { to: '/catalog', label: 'Catalog' },
  { to: '/playground', label: 'Playground' },
  { to: '/keys', label: 'Keys' },
  { to: '/endpoints', label: 'Endpoints' },
];

/** The frame of every page: navigation, the key profile chooser, and the page itself. */
/** A line under the header when the BFF cannot reach the gateway, so every page's errors make sense. */
function GatewayStatus() {
  const health = useHealth();
  if (!health.data || health.data.reachable) return null;
  return (
    <div
      role="status"
      className="border-b border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-950 sm:px-6 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100"
    >
      The gateway at <span className="font-mono">{health.data.gateway_base_url}</span> does not
      answer
      {health.data.error ? `: ${health.data.error}` : '.'} Check that it is running; pages that need
      it will fail until it answers.
    </div>
  );
}

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
          </div>
        </header>
        <GatewayStatus />
        <main id="main" className="flex flex-1 flex-col">
          <Outlet />
        </main>
      </div>
    </ProfileProvider>
  );
}
