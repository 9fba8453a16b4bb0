import { useActorRef, useSelector } from '@xstate/react';
import { useMemo } from 'react';
import type { AuthTokenSnapshot } from '../../machines/authTokenMachine';
import { selectProfile } from '../../machines/authTokenMachine.selectors';
import { UsersView } from '../../views/admin/UsersView';
import { useAppServices } from '../services';
import { userAdminLogic } from '../userAdminImplementations';

const selectUserId = (snapshot: AuthTokenSnapshot) => selectProfile(snapshot)?.id ?? null;

/** /admin/users: the users admin machine with its effects, and its view. */
export function UsersSection() {
  const { workspace, auth, inspect } = useAppServices();
  // Read once, when the machine starts: the signed-in administrator's own account.
  const selfId = useSelector(auth, selectUserId);
  const logic = useMemo(() => userAdminLogic(workspace.http), [workspace]);
  const admin = useActorRef(logic, { input: { selfId }, inspect });
  return <UsersView admin={admin} />;
}
