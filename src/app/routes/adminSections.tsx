import { useActorRef } from '@xstate/react';
import { useMemo } from 'react';
import { adminDashboardMachine } from '../../machines/adminDashboardMachine';
import { adminVmsMachine } from '../../machines/adminVmsMachine';
import { serverLogMachine } from '../../machines/serverLogMachine';
import { warmPoolsMachine } from '../../machines/warmPoolsMachine';
import { workspaceArchiveMachine } from '../../machines/workspaceArchiveMachine';
import { AdminDashboardView } from '../../views/admin/AdminDashboardView';
import { AdminMachinesView } from '../../views/admin/AdminMachinesView';
import { ServerLogView } from '../../views/admin/ServerLogView';
import {
  adminDashboardImplementations,
  adminVmsImplementations,
  serverLogImplementations,
  warmPoolsImplementations,
  workspaceArchiveImplementations,
} from '../adminImplementations';
import { useAppServices } from '../services';

// The admin sections that run a machine of their own: each one's actor lives while its section
// is in view, so coming back to a section loads it afresh.

export function DashboardSection() {
  const { workspace, inspect } = useAppServices();
  const machine = useMemo(
    () => adminDashboardMachine.provide(adminDashboardImplementations(workspace.http)),
    [workspace.http],
  );
  const dashboard = useActorRef(machine, { inspect });
  const archiveMachine = useMemo(
    () => workspaceArchiveMachine.provide(workspaceArchiveImplementations(workspace.http)),
    [workspace.http],
  );
  const archive = useActorRef(archiveMachine, { inspect });
  const poolsMachine = useMemo(
    () => warmPoolsMachine.provide(warmPoolsImplementations(workspace.http)),
    [workspace.http],
  );
  const pools = useActorRef(poolsMachine, { inspect });
  return <AdminDashboardView dashboard={dashboard} archive={archive} pools={pools} />;
}

export function MachinesSection() {
  const { workspace, inspect } = useAppServices();
  const machine = useMemo(
    () => adminVmsMachine.provide(adminVmsImplementations(workspace.http)),
    [workspace.http],
  );
  const vms = useActorRef(machine, { inspect });
  return <AdminMachinesView vms={vms} />;
}

export function LogSection() {
  const { workspace, inspect } = useAppServices();
  const machine = useMemo(
    () => serverLogMachine.provide(serverLogImplementations(workspace.http)),
    [workspace.http],
  );
  const log = useActorRef(machine, { inspect });
  return <ServerLogView log={log} />;
}
