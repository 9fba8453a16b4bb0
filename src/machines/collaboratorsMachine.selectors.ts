import {
  onlyManagerId,
  type Collaborator,
  type CollaboratorsSnapshot,
} from './collaboratorsMachine';

/** The context's own array: a stable reference until the list changes. */
export const selectCollaborators = (snapshot: CollaboratorsSnapshot): readonly Collaborator[] =>
  snapshot.context.collaborators;

/** Whose removal is being confirmed or carried out, if anyone's. */
export const selectRemovalTargetId = (snapshot: CollaboratorsSnapshot): string | null =>
  snapshot.context.target?.subjectId ?? null;

export const selectIsConfirmingRemoval = (snapshot: CollaboratorsSnapshot): boolean =>
  snapshot.matches('confirming');

export const selectIsRemoving = (snapshot: CollaboratorsSnapshot): boolean =>
  snapshot.matches('removing');

/** Remove is offered while no other removal is being confirmed or carried out. */
export const selectCanRequestRemoval = (snapshot: CollaboratorsSnapshot): boolean =>
  snapshot.matches('idle');

export const selectCollaboratorErrors = (snapshot: CollaboratorsSnapshot): readonly string[] =>
  snapshot.context.errors;

/** The only manager, for whom Remove is not offered (the server would refuse it). */
export const selectOnlyManagerId = (snapshot: CollaboratorsSnapshot): string | null =>
  onlyManagerId(snapshot.context.collaborators);
