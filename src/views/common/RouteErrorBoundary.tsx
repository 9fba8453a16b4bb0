import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** The location; when it changes after a failure, the view is given another chance. */
  resetKey: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
  /** `resetKey` when the error happened. */
  failedAt: string | null;
}

/**
 * Keeps a failing view from taking the shell down with it: the top bar and sidebar stay usable
 * and the user can go elsewhere.
 */
export class RouteErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, failedAt: null };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    if (state.error === null) return null;
    if (state.failedAt === null) return { failedAt: props.resetKey };
    return state.failedAt === props.resetKey ? null : { error: null, failedAt: null };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('View failed to render', error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <section className="tp-page tp-center" aria-labelledby="tp-view-error">
        <h1 id="tp-view-error">This page could not be displayed.</h1>
        <p className="tp-muted">{error.message}</p>
        <a className="p-button p-component" href="/">
          Home
        </a>
      </section>
    );
  }
}
