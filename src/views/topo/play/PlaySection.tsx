import { useSelector } from '@xstate/react';
import { useContext } from 'react';
import type {
  FlagLaunchOption,
  GamespaceLaunchActorRef,
  GamespaceLaunchSnapshot,
  NumericLaunchOption,
} from '../../../machines/gamespaceLaunchMachine';
import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';
import { selectWorkspaceHeader } from '../../../machines/workspaceEditorMachine.selectors';
import { Spinner } from '../../common/Spinner';
import { PlayLaunchContext } from './playLaunchContext';

const NUMBERS: readonly [NumericLaunchOption, string][] = [
  ['variant', 'Variant'],
  ['maxAttempts', 'Max attempts'],
  ['maxMinutes', 'Max minutes'],
  ['points', 'Points'],
];

const FLAGS: readonly [FlagLaunchOption, string][] = [
  ['allowReset', 'Allow reset'],
  ['allowPreview', 'Allow preview'],
  ['startGamespace', 'Start'],
];

const selectOptions = (snapshot: GamespaceLaunchSnapshot) => snapshot.context.options;
const selectError = (snapshot: GamespaceLaunchSnapshot) => snapshot.context.error;
const selectIsLaunching = (snapshot: GamespaceLaunchSnapshot) => snapshot.matches('launching');

function LaunchForm({ launcher }: { launcher: GamespaceLaunchActorRef }) {
  const options = useSelector(launcher, selectOptions);
  const error = useSelector(launcher, selectError);
  const launching = useSelector(launcher, selectIsLaunching);
  return (
    <form
      className="tp-launch"
      aria-label="Launch settings"
      onSubmit={(e) => {
        e.preventDefault();
        launcher.send({ type: 'launch.requested' });
      }}
    >
      {NUMBERS.map(([option, label]) => (
        <label key={option} className="tp-launch-field">
          <span>{label}</span>
          <input
            className="p-inputtext p-component"
            type="number"
            min={0}
            value={options[option]}
            onChange={(e) =>
              launcher.send({ type: 'launch.numberChanged', option, value: Number(e.target.value) })
            }
          />
        </label>
      ))}
      {FLAGS.map(([option, label]) => (
        <label key={option} className="tp-launch-flag">
          <input
            type="checkbox"
            checked={options[option]}
            onChange={(e) =>
              launcher.send({ type: 'launch.flagChanged', option, value: e.target.checked })
            }
          />
          <span>{label}</span>
        </label>
      ))}
      <div className="tp-actions">
        <button type="submit" className="p-button p-component" disabled={launching}>
          Launch
        </button>
        {launching && <Spinner label="Launching" />}
      </div>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** The Play tab: launch settings and Launch (spec §2 Workspace editor, §3 Launch settings). */
export default function PlaySection({ editor }: { editor: WorkspaceEditorActorRef }) {
  const workspace = useSelector(editor, selectWorkspaceHeader);
  const launcher = useContext(PlayLaunchContext);
  if (!workspace || !launcher) return null;
  return <LaunchForm launcher={launcher} />;
}
