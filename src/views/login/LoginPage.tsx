import type { ReactNode } from 'react';
import { useTitle } from '../common/useTitle';

/** The /login route: the login prompt on its own page. */
export function LoginPage({ children }: { children: ReactNode }) {
  useTitle('Sign in');
  return <div className="tp-page tp-center">{children}</div>;
}
