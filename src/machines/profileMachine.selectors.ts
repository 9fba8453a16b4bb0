import type { KeyboardLayout } from '../domain/keyboardLayouts';
import type { OwnApiKey, ProfileSnapshot } from './profileMachine';

export const selectIsLoading = (s: ProfileSnapshot): boolean => s.matches('loading');
export const selectLoadFailed = (s: ProfileSnapshot): boolean => s.matches('failed');
export const selectKeys = (s: ProfileSnapshot): readonly OwnApiKey[] => s.context.keys;
export const selectNewKey = (s: ProfileSnapshot): string | null => s.context.newKey;
export const selectKeyCopied = (s: ProfileSnapshot): boolean => s.context.keyCopied;
export const selectKeyError = (s: ProfileSnapshot): string | null => s.context.keyError;

/** The key whose revocation waits for the user's confirmation; null when none does. */
export const selectKeyToConfirm = (s: ProfileSnapshot): string | null =>
  s.matches({ ready: { keys: 'confirmingRevoke' } }) ? s.context.revoking : null;

/** A key is being issued or revoked: the key buttons wait. */
export const selectKeysBusy = (s: ProfileSnapshot): boolean =>
  s.matches({ ready: { keys: 'issuing' } }) || s.matches({ ready: { keys: 'revoking' } });

/** The user signs in with the embedded provider: its password can be changed here. */
export const selectHasLocalSignIn = (s: ProfileSnapshot): boolean => s.context.username !== null;
export const selectUsername = (s: ProfileSnapshot): string | null => s.context.username;
export const selectPasswordChanging = (s: ProfileSnapshot): boolean =>
  s.matches({ ready: { password: 'changing' } });
export const selectPasswordError = (s: ProfileSnapshot): string | null => s.context.passwordError;
export const selectPasswordChanged = (s: ProfileSnapshot): boolean => s.context.passwordChanged;
export const selectCurrentPassword = (s: ProfileSnapshot): string => s.context.password.current;
export const selectNewPassword = (s: ProfileSnapshot): string => s.context.password.next;
export const selectRepeatedPassword = (s: ProfileSnapshot): string => s.context.password.repeat;

/** The keyboard layout the user's consoles type on. */
export const selectKeyboardLayout = (s: ProfileSnapshot): KeyboardLayout =>
  s.context.keyboardLayout;
