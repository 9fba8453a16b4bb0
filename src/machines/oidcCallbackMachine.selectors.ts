import type { OidcCallbackSnapshot } from './oidcCallbackMachine';

export const selectIsValidating = (snapshot: OidcCallbackSnapshot): boolean =>
  snapshot.matches('validating');

export const selectCallbackError = (snapshot: OidcCallbackSnapshot): string | null =>
  snapshot.context.error;

export const selectTargetUrl = (snapshot: OidcCallbackSnapshot): string | null =>
  snapshot.context.targetUrl;
