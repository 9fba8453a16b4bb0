import type { ConsoleSnapshot } from './consoleMachine';
import type { GuestFileItem, GuestFilesActorRef, GuestFilesSnapshot } from './guestFilesMachine';

/** Whether files may be dropped or picked: the machine said it takes them. */
export const selectCanPutFiles = (s: GuestFilesSnapshot): boolean =>
  s.context.access?.available === true;

/** Why files cannot be put into the machine, once known; null when they can or while asking. */
export const selectFilesUnavailableReason = (s: GuestFilesSnapshot): string | null =>
  s.context.accessError ??
  (s.context.access?.available ? null : (s.context.access?.reason ?? null));

/** The files chosen, in order, with their state. */
export const selectFileItems = (s: GuestFilesSnapshot): readonly GuestFileItem[] => s.context.items;

export const selectIsSendingFiles = (s: GuestFilesSnapshot): boolean => s.hasTag('busy');

/** The console's files child, while the console is open. */
export const selectFilesActor = (snapshot: ConsoleSnapshot): GuestFilesActorRef | undefined =>
  snapshot.children.files;
