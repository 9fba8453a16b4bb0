import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useTitle } from '../common/useTitle';

/** The Observe Dashboard (observers): it holds the gamespace browser in its view-only form. */
export default function ObserveView({ children }: { children: ReactNode }) {
  useTitle('Observe');
  return (
    <div className="tp-page">
      <h1>Observe Dashboard</h1>
      <p>
        <Link to="/observe/wall">Instructor wall</Link>: every running gamespace at a glance, with
        its machines' consoles.
      </p>
      {children}
    </div>
  );
}
