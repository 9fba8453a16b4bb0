import { useActorRef, useSelector } from '@xstate/react';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { selectLaunchSignInStatus } from '../../machines/launchSignInMachine.selectors';
import ConsoleView from '../../views/console/ConsoleView';
import { LaunchSignInView } from '../../views/launch/LaunchSignInView';
import { createGuestFilePutter } from '../../api/guestFileUpload';
import { apiBaseUrl } from '../../api/http';
import { cookieHttpClient, launchConsoleLogic, launchSignInLogic } from '../launchImplementations';
import { consoleBrowser } from '../consoleImplementations';
import { keyboardLayoutOf } from '../localSettings';
import { useAppServices } from '../services';

/** The machine a console link names, and its ticket (if any). */
interface ConsoleLink {
  /** `name#gamespace`: the server finds a gamespace's machine by it (wire reference §1.4). */
  vmId: string;
  name: string;
  gamespaceId: string | null;
  ticket: string | null;
  fullbleed: boolean;
}

/** /mks/?f=1&s={gamespace}&v={name}&t={ticket}, or the older /c?sessionId=&name=&token=. */
const linkOf = (search: string): ConsoleLink => {
  const query = new URLSearchParams(search);
  const value = (...names: string[]) =>
    names.map((name) => query.get(name)).find((v): v is string => !!v) ?? null;
  const gamespaceId = value('s', 'sessionId');
  const name = value('v', 'name') ?? '';
  return {
    vmId: gamespaceId ? `${name}#${gamespaceId}` : name,
    name,
    gamespaceId,
    ticket: value('t', 'token'),
    fullbleed: query.get('f') === '1',
  };
};

/** The address without its ticket, which is good once. */
const withoutTicket = (pathname: string, search: string): string => {
  const query = new URLSearchParams(search);
  query.delete('t');
  query.delete('token');
  return `${pathname}?${query.toString()}`;
};

function Console({ link }: { link: ConsoleLink }) {
  const { settings, inspect, local } = useAppServices();
  // A launch link's console does not know who signed in: the layout chosen last in this browser.
  const logic = useMemo(
    () =>
      launchConsoleLogic(
        cookieHttpClient(settings.apphost),
        consoleBrowser(local, null),
        createGuestFilePutter({ baseUrl: apiBaseUrl(settings.apphost) }),
      ),
    [settings.apphost, local],
  );
  // Drawn once per page: pages dropped together spread their reconnections.
  const [jitter] = useState(Math.random);
  const session = useActorRef(logic, {
    input: {
      vmId: link.vmId,
      name: link.name,
      fullbleed: link.fullbleed,
      jitter,
      keyboardLayout: keyboardLayoutOf(local, null),
    },
    inspect,
  });
  return <ConsoleView session={session} />;
}

/**
 * The console links of TopoMojo clients (the Moodle plugin's buttons, the launch page's): signs
 * the browser in by the link's ticket or the cookie it already holds, then shows the console.
 */
export default function LaunchConsoleRoute() {
  const { settings, inspect } = useAppServices();
  const navigate = useNavigate();
  const [link] = useState(() => linkOf(window.location.search));
  const logic = useMemo(
    () =>
      launchSignInLogic(cookieHttpClient(settings.apphost), () => {
        void navigate(withoutTicket(window.location.pathname, window.location.search), {
          replace: true,
        });
      }),
    [settings.apphost, navigate],
  );
  const signIn = useActorRef(logic, {
    input: { ticket: link.ticket, code: null, gamespaceId: link.gamespaceId },
    inspect,
  });
  const status = useSelector(signIn, selectLaunchSignInStatus);
  if (status === 'signedIn') return <Console link={link} />;
  return <LaunchSignInView signIn={signIn} />;
}
