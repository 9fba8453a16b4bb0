import { useActorRef } from '@xstate/react';
import { useMemo } from 'react';
import { UsersView } from '../../views/admin/UsersView';
import { useAppServices } from '../services';
import { userAdminLogic } from '../userAdminImplementations';

/** /admin/users: the users admin machine with its effects, and its view. */
export function UsersSection() {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => userAdminLogic(workspace.http), [workspace]);
  const admin = useActorRef(logic, { inspect });
  return <UsersView admin={admin} />;
}
