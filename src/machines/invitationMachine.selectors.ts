import { invitationLink, type InvitationSnapshot } from './invitationMachine';

/** The link to share, once a code is generated; a string, so comparisons stay cheap. */
export const selectInvitationLink = (snapshot: InvitationSnapshot): string | null =>
  invitationLink(snapshot.context);

export const selectIsGenerating = (snapshot: InvitationSnapshot): boolean =>
  snapshot.hasTag('busy');

export const selectCanGenerate = (snapshot: InvitationSnapshot): boolean =>
  !snapshot.hasTag('busy');

export const selectCanCopy = (snapshot: InvitationSnapshot): boolean =>
  snapshot.can({ type: 'invitation.copyRequested' });

/** 'Copied' shows (COPY_CONFIRMATION_MS after a copy). */
export const selectShowCopied = (snapshot: InvitationSnapshot): boolean =>
  snapshot.hasTag('copied');

export const selectInvitationError = (snapshot: InvitationSnapshot): string | null =>
  snapshot.context.error;
