import { useTitle } from '../common/useTitle';

/** The observe dashboard (observers); the gamespace browser arrives with gamespaces. */
export default function ObserveView() {
  useTitle('Observe');
  return (
    <div className="tp-page">
      <h1>Gamespaces</h1>
      <p className="tp-muted">The gamespace browser will list active gamespaces here.</p>
    </div>
  );
}
