import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useTitle } from '../common/useTitle';

/**
 * The Observe Dashboard (observers): the gamespace browser in its view-only form, and the
 * answer-sharing alerts of the workspaces observed under their own heading.
 */
export default function ObserveView({
  children,
  alerts,
}: {
  children: ReactNode;
  alerts?: ReactNode;
}) {
  useTitle('Observe');
  return (
    <div className="tp-page">
      <h1>Observe Dashboard</h1>
      <p>
        <Link to="/observe/wall">Instructor wall</Link>: every running gamespace at a glance, with
        its machines' consoles.
      </p>
      {alerts && (
        <section aria-labelledby="tp-observe-alerts">
          <h2 id="tp-observe-alerts">Alerts</h2>
          {alerts}
        </section>
      )}
      {children}
    </div>
  );
}
