/**
 * Whether the shell shows the red 'Attempting re-connection...' banner: the user is signed in
 * and the real-time connection is initialized but not connected (spec §2 Shell).
 *
 * The hubConnection machine arrives with the real-time hub issue; until then there is no
 * connection to lose, so the banner never shows. Its snapshot will be this selector's argument.
 */
export const selectShowReconnectBanner = (_hubSnapshot: unknown): boolean => false;
