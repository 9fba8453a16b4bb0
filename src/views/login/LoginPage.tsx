import type { ReactNode } from 'react';

/** The /login route: the login prompt on its own page. */
export function LoginPage({ children }: { children: ReactNode }) {
  return <div className="tp-page tp-center">{children}</div>;
}
