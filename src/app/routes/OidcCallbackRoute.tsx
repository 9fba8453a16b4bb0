import { useActorRef } from '@xstate/react';
import { oidcCallbackMachine } from '../../machines/oidcCallbackMachine';
import { OidcCallbackView } from '../../views/oidc/OidcCallbackView';
import { useAppServices } from '../services';

/** /oidc (redirect sign-in) or /oidc-silent (the silent-renew iframe). */
export function OidcCallbackRoute({ silent }: { silent: boolean }) {
  const { implementations, inspect } = useAppServices();
  const callback = useActorRef(
    oidcCallbackMachine.provide(
      silent ? implementations.oidcSilentCallback : implementations.oidcCallback,
    ),
    { inspect },
  );
  return <OidcCallbackView callback={callback} />;
}
