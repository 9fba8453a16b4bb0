import { useActorRef } from '@xstate/react';
import { useMemo, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { createGuestFilePutter } from '../../api/guestFileUpload';
import { apiBaseUrl } from '../../api/http';
import { consoleMachine } from '../../machines/consoleMachine';
import ConsoleView from '../../views/console/ConsoleView';
import { selectProfile } from '../../machines/authTokenMachine.selectors';
import { consoleBrowser, consoleImplementations } from '../consoleImplementations';
import { keyboardLayoutOf } from '../localSettings';
import { useAppServices } from '../services';

function MachineConsole({
  vmId,
  name,
  fullbleed,
}: {
  vmId: string;
  name: string;
  fullbleed: boolean;
}) {
  const { workspace, inspect, auth, local } = useAppServices();
  // The user the page opened for: the keyboard layout is theirs.
  const [userId] = useState(() => selectProfile(auth.getSnapshot())?.id ?? null);
  const machine = useMemo(
    () =>
      consoleMachine.provide(
        consoleImplementations(
          workspace.http,
          consoleBrowser(local, userId),
          createGuestFilePutter({ baseUrl: apiBaseUrl(workspace.apphost) }),
          { hub: workspace.hub, hubEvents: workspace.hubEvents },
        ),
      ),
    [workspace.http, workspace.apphost, workspace.hub, workspace.hubEvents, local, userId],
  );
  // Drawn once per page: pages dropped together spread their reconnections.
  const [jitter] = useState(Math.random);
  const session = useActorRef(machine, {
    input: {
      vmId,
      name,
      fullbleed,
      jitter,
      userId,
      keyboardLayout: keyboardLayoutOf(local, userId),
    },
    inspect,
  });
  return <ConsoleView session={session} />;
}

/** /console/{id}/{name}?f=&s=&v=: a machine's console in its own tab, without the app shell. */
export default function ConsoleRoute() {
  const { id = '', name = '' } = useParams();
  const [query] = useSearchParams();
  // One console actor per machine: another id is another machine.
  return <MachineConsole key={id} vmId={id} name={name} fullbleed={query.get('f') === '1'} />;
}
