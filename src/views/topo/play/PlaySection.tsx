import { useSelector } from '@xstate/react';
import { Fragment, useContext } from 'react';
import {
  gamespaceMinutesCap,
  type MinutesCap,
  type MinutesCapSource,
} from '../../../domain/gameLength';
import type {
  FlagLaunchOption,
  GamespaceLaunchActorRef,
  GamespaceLaunchSnapshot,
  NumericLaunchOption,
} from '../../../machines/gamespaceLaunchMachine';
import type {
  WorkspaceEditorActorRef,
  WorkspaceEditorSnapshot,
} from '../../../machines/workspaceEditorMachine';
import { selectWorkspaceHeader } from '../../../machines/workspaceEditorMachine.selectors';
import { Spinner } from '../../common/Spinner';
import { PlayLaunchContext } from './playLaunchContext';

import './play.css';

/** What a number means, where the label alone does not say it (wire reference §4.2). */
const NUMBERS: readonly [NumericLaunchOption, string, string | null][] = [
  [
    'variant',
    'Variant',
    '0: a variant picked at random for each game. 1, 2, …: that variant of the challenge (a number past the last is the last).',
  ],
  ['maxAttempts', 'Max attempts', null],
  ['maxMinutes', 'Max minutes', null],
  ['points', 'Points', null],
];

const FLAGS: readonly [FlagLaunchOption, string, string | null][] = [
  ['allowReset', 'Allow reset', null],
  ['allowPreview', 'Allow preview', null],
  [
    'startGamespace',
    'Start',
    'Deploy the machines and start the clock at launch. Unchecked, the game waits on its page until Start is pressed there.',
  ],
];

const hintId = (option: string) => `tp-launch-hint-${option}`;

const selectOptions = (snapshot: GamespaceLaunchSnapshot) => snapshot.context.options;
const selectError = (snapshot: GamespaceLaunchSnapshot) => snapshot.context.error;
const selectIsLaunching = (snapshot: GamespaceLaunchSnapshot) => snapshot.matches('launching');
const selectAccountMaxMinutes = (snapshot: GamespaceLaunchSnapshot) =>
  snapshot.context.accountMaxMinutes;
const selectWorkspaceMinutes = (snapshot: WorkspaceEditorSnapshot) =>
  snapshot.context.workspace?.durationMinutes ?? 0;

const CAP_SOURCES: Record<MinutesCapSource, string> = {
  account: "your account's limit",
  workspace: "the workspace's duration",
  default: 'the default, as the workspace sets no duration',
};

const CAP_NOTE_ID = 'tp-launch-minutes-cap';

/**
 * The server lowers Max minutes to the cap at launch: the author learns of it here rather than
 * from a shorter clock. Left empty (0), the game gets the cap.
 */
function MinutesCapNote({ cap, requested }: { cap: MinutesCap; requested: number }) {
  return (
    <div id={CAP_NOTE_ID} className="tp-launch-note">
      <span className="tp-muted">
        At most {cap.minutes} minutes: {CAP_SOURCES[cap.source]}.
        {requested === 0 && ` Left empty, the game lasts ${cap.minutes} minutes.`}
      </span>
      {requested > cap.minutes && (
        <span className="tp-launch-lowered" role="status">
          {requested} minutes is lowered to {cap.minutes} at launch.
        </span>
      )}
    </div>
  );
}

function LaunchForm({ launcher, cap }: { launcher: GamespaceLaunchActorRef; cap: MinutesCap }) {
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
      {NUMBERS.map(([option, label, hint]) => (
        <Fragment key={option}>
          <label className="tp-launch-field">
            <span>{label}</span>
            <input
              className="p-inputtext p-component"
              type="number"
              min={0}
              // Max minutes 0 is the cap, shown as the field's placeholder.
              value={option === 'maxMinutes' && options.maxMinutes === 0 ? '' : options[option]}
              placeholder={option === 'maxMinutes' ? String(cap.minutes) : undefined}
              aria-describedby={
                option === 'maxMinutes' ? CAP_NOTE_ID : hint ? hintId(option) : undefined
              }
              onChange={(e) =>
                launcher.send({
                  type: 'launch.numberChanged',
                  option,
                  value: Number(e.target.value),
                })
              }
            />
          </label>
          {option === 'maxMinutes' && <MinutesCapNote cap={cap} requested={options.maxMinutes} />}
          {hint && (
            <p id={hintId(option)} className="tp-launch-note tp-muted">
              {hint}
            </p>
          )}
        </Fragment>
      ))}
      {FLAGS.map(([option, label, hint]) => (
        <Fragment key={option}>
          <label className="tp-launch-flag">
            <input
              type="checkbox"
              checked={options[option]}
              aria-describedby={hint ? hintId(option) : undefined}
              onChange={(e) =>
                launcher.send({ type: 'launch.flagChanged', option, value: e.target.checked })
              }
            />
            <span>{label}</span>
          </label>
          {hint && (
            <p id={hintId(option)} className="tp-launch-note tp-muted">
              {hint}
            </p>
          )}
        </Fragment>
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

function Launcher({
  launcher,
  workspaceMinutes,
}: {
  launcher: GamespaceLaunchActorRef;
  workspaceMinutes: number;
}) {
  const accountMinutes = useSelector(launcher, selectAccountMaxMinutes);
  return (
    <LaunchForm launcher={launcher} cap={gamespaceMinutesCap(accountMinutes, workspaceMinutes)} />
  );
}

/** The Play tab: launch settings and Launch (spec §2 Workspace editor, §3 Launch settings). */
export default function PlaySection({ editor }: { editor: WorkspaceEditorActorRef }) {
  const workspace = useSelector(editor, selectWorkspaceHeader);
  const workspaceMinutes = useSelector(editor, selectWorkspaceMinutes);
  const launcher = useContext(PlayLaunchContext);
  if (!workspace || !launcher) return null;
  return <Launcher launcher={launcher} workspaceMinutes={workspaceMinutes} />;
}
