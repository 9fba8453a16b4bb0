import type { ReactNode } from 'react';
import { NavLink } from 'react-router';
import { useTitle } from '../common/useTitle';

/** The admin area's sections, in menu order; the first one is /admin itself. */
export const ADMIN_SECTIONS = [
  { path: '', label: 'Dashboard' },
  { path: 'gamespaces', label: 'Gamespaces' },
  { path: 'users', label: 'Users' },
  { path: 'templates', label: 'Templates' },
  { path: 'machines', label: 'Machines' },
  { path: 'log', label: 'Log' },
  { path: 'events', label: 'Event log' },
] as const;

export type AdminSection = (typeof ADMIN_SECTIONS)[number]['path'];

export const isAdminSection = (value: string): value is AdminSection =>
  ADMIN_SECTIONS.some((s) => s.path === value);

const tabClass = ({ isActive }: { isActive: boolean }) =>
  isActive ? 'tp-tab tp-tab-active' : 'tp-tab';

/** The admin area: its menu and the section in view. */
export function AdminView({ section, children }: { section: AdminSection; children: ReactNode }) {
  useTitle('Admin', ADMIN_SECTIONS.find((s) => s.path === section)?.label);
  return (
    <div className="tp-page">
      <h1>Admin</h1>
      <nav className="tp-tabs" aria-label="Admin sections">
        {ADMIN_SECTIONS.map((s) => (
          <NavLink
            key={s.path}
            to={s.path ? `/admin/${s.path}` : '/admin'}
            end
            className={tabClass}
          >
            {s.label}
          </NavLink>
        ))}
        {/* The server's own page (not a section of the app): the API's reference, to try calls. */}
        <a className="tp-tab" href="/api">
          API reference
        </a>
      </nav>
      {children}
    </div>
  );
}
