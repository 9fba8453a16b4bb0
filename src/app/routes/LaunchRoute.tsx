import { useActorRef, useSelector } from '@xstate/react';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import type { LaunchSignInInput } from '../../machines/launchSignInMachine';
import {
  selectLaunchGamespaceId,
  selectLaunchSignInStatus,
} from '../../machines/launchSignInMachine.selectors';
import { LaunchGameView } from '../../views/launch/LaunchGameView';
import { LaunchSignInView } from '../../views/launch/LaunchSignInView';
import { cookieHttpClient, launchSessionLogic, launchSignInLogic } from '../launchImplementations';
import { useAppServices } from '../services';

/** The link's parameters, read once: the address drops the ticket after signing in. */
const linkOf = (search: string): LaunchSignInInput => {
  const query = new URLSearchParams(search);
  const value = (...names: string[]) =>
    names.map((name) => query.get(name)).find((v): v is string => !!v) ?? null;
  return { ticket: value('t'), code: value('c'), gamespaceId: value('g') };
};

function Game({ gamespaceId }: { gamespaceId: string }) {
  const { workspace, settings, inspect } = useAppServices();
  const logic = useMemo(
    () => launchSessionLogic(workspace, cookieHttpClient(settings.apphost), gamespaceId, inspect),
    [workspace, settings.apphost, gamespaceId, inspect],
  );
  const [openedAt] = useState(() => Date.now());
  const session = useActorRef(logic, {
    input: { id: gamespaceId, now: openedAt, origin: window.location.origin },
    inspect,
  });
  return <LaunchGameView session={session} />;
}

/**
 * /lp?t={ticket}&g={gamespace} and /lp?c={code}: the launch link that registering a player
 * answers (launchpointUrl). Signs the browser in as that player, then shows the game.
 */
export default function LaunchRoute() {
  const { settings, inspect } = useAppServices();
  const navigate = useNavigate();
  const [link] = useState(() => linkOf(window.location.search));
  const logic = useMemo(
    () =>
      launchSignInLogic(cookieHttpClient(settings.apphost), (gamespaceId) => {
        if (gamespaceId)
          void navigate(`/lp?g=${encodeURIComponent(gamespaceId)}`, { replace: true });
      }),
    [settings.apphost, navigate],
  );
  const signIn = useActorRef(logic, { input: link, inspect });
  const status = useSelector(signIn, selectLaunchSignInStatus);
  const gamespaceId = useSelector(signIn, selectLaunchGamespaceId);
  if (status === 'signedIn' && gamespaceId) return <Game gamespaceId={gamespaceId} />;
  return <LaunchSignInView signIn={signIn} />;
}
