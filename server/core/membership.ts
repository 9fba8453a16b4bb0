// When someone's part in a gamespace or a workspace ends, so may their listening on its hub group
// (who takes part is the membership repository's to answer).

/**
 * Tells the hub that someone's right to listen on a group may have ended (see Hub.revoke): the
 * connections concerned leave the groups they may no longer listen on, on every server process.
 */
export interface ListenerRevoker {
  revoke(target: { group?: string; subjectId?: string }): void;
}

export const NO_REVOKER: ListenerRevoker = { revoke: () => {} };
