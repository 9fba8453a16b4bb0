import { Link } from 'react-router';

/**
 * A page that cannot be shown, said plainly: what stopped it as the heading, why below, and the
 * way home. The screen that shows it names the tab (useTitle).
 */
export function StoppedPage({ title, detail }: { title: string; detail?: string }) {
  return (
    <div className="tp-page tp-center">
      <h1 className="tp-error-title">{title}</h1>
      {detail && <p className="tp-muted">{detail}</p>}
      <Link to="/" className="p-button p-component">
        Home
      </Link>
    </div>
  );
}
