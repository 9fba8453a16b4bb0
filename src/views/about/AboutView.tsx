import { useTitle } from '../common/useTitle';

const HOTKEYS: readonly (readonly [string, string])[] = [
  ['Ctrl-O', 'open workspace'],
  ['Ctrl-L', 'toggle left panel'],
  ['Ctrl-H', 'home'],
  ['Ctrl-1', 'workspace settings'],
  ['Ctrl-2', 'templates'],
  ['Ctrl-3', 'document'],
  ['Ctrl-4', 'challenge'],
  ['Ctrl-5', 'files'],
  ['Ctrl-6', 'play'],
];

/**
 * What the product's words mean, where its API is described, and the keyboard shortcuts (spec
 * §2 route about).
 */
export default function AboutView() {
  useTitle('About');
  return (
    <div className="tp-page">
      <h1>About</h1>
      <div className="tp-cards">
        <section className="p-card p-component tp-card" aria-labelledby="tp-about-workspace">
          <div className="p-card-body">
            <h2 id="tp-about-workspace" className="p-card-title">
              Workspace
            </h2>
            <p className="p-card-content">
              A workspace is where you create, configure and publish a lab or challenge so that
              others can launch it: its machine templates, guidance document, files and questions.
            </p>
          </div>
        </section>
        <section className="p-card p-component tp-card" aria-labelledby="tp-about-gamespace">
          <div className="p-card-body">
            <h2 id="tp-about-gamespace" className="p-card-title">
              Gamespace
            </h2>
            <p className="p-card-content">
              A gamespace is an instance of a lab or challenge in Play mode: its machines are
              deployed for the players, who answer its questions before the time runs out.
            </p>
          </div>
        </section>
        <section className="p-card p-component tp-card" aria-labelledby="tp-about-api">
          <div className="p-card-body">
            <h2 id="tp-about-api" className="p-card-title">
              API
            </h2>
            <p className="p-card-content">
              Everything this site does goes through its API, which scripts and other tools can call
              too. {/* The server's own page, not a route of the app: a full page load. */}
              <a href="/api">API reference</a> describes each call and lets you try it.
            </p>
          </div>
        </section>
        <section className="p-card p-component tp-card" aria-labelledby="tp-about-hotkeys">
          <div className="p-card-body">
            <h2 id="tp-about-hotkeys" className="p-card-title">
              HotKeys
            </h2>
            <ul className="p-card-content tp-hotkeys">
              {HOTKEYS.map(([keys, action]) => (
                <li key={keys}>
                  <kbd>{keys}</kbd> {action}
                </li>
              ))}
            </ul>
          </div>
        </section>
      </div>
    </div>
  );
}
