import { useSelector } from '@xstate/react';
import { useId } from 'react';
import {
  KEYBOARD_LAYOUT_LABELS,
  KEYBOARD_LAYOUTS,
  isKeyboardLayout,
} from '../../domain/keyboardLayouts';
import type { RoleLabel } from '../../domain/roleLabel';
import { readableDateTime } from '../../domain/userLimits';
import type { PasswordField, ProfileActorRef } from '../../machines/profileMachine';
import {
  selectCurrentPassword,
  selectHasLocalSignIn,
  selectIsLoading,
  selectKeyCopied,
  selectKeyboardLayout,
  selectKeyError,
  selectKeys,
  selectKeysBusy,
  selectKeyToConfirm,
  selectLoadFailed,
  selectNewKey,
  selectNewPassword,
  selectPasswordChanged,
  selectPasswordChanging,
  selectPasswordError,
  selectRepeatedPassword,
  selectUsername,
} from '../../machines/profileMachine.selectors';
import { Spinner } from '../common/Spinner';
import { useTitle } from '../common/useTitle';
import './profile.css';

const BUTTON = 'p-button p-component p-button-sm';
const OUTLINED = `${BUTTON} p-button-outlined`;

/** What each role may do, in a sentence beside it. */
const ROLE_NOTES: Record<RoleLabel, string> = {
  Administrator: 'You can manage users, workspaces, gamespaces and the server.',
  Creator: 'You can create workspaces and observe gamespaces.',
  Observer: 'You can observe the gamespaces of your audience.',
  User: 'You can play the gamespaces you are invited to and work in the workspaces shared with you.',
};

function PasswordInput({
  profile,
  field,
  label,
  select,
  autoComplete,
}: {
  profile: ProfileActorRef;
  field: PasswordField;
  label: string;
  select: (s: Parameters<typeof selectCurrentPassword>[0]) => string;
  autoComplete: 'current-password' | 'new-password';
}) {
  const id = useId();
  const value = useSelector(profile, select);
  return (
    <div className="tp-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="password"
        className="p-inputtext p-component"
        autoComplete={autoComplete}
        value={value}
        onChange={(e) => profile.send({ type: 'password.edited', field, value: e.target.value })}
      />
    </div>
  );
}

function PasswordSection({ profile }: { profile: ProfileActorRef }) {
  const local = useSelector(profile, selectHasLocalSignIn);
  const username = useSelector(profile, selectUsername);
  const changing = useSelector(profile, selectPasswordChanging);
  const error = useSelector(profile, selectPasswordError);
  const changed = useSelector(profile, selectPasswordChanged);
  return (
    <section className="tp-panel" aria-labelledby="tp-profile-password">
      <h2 id="tp-profile-password">Password</h2>
      {!local ? (
        <p>
          You sign in through your organization&apos;s identity provider, not with a password of
          this site: change your password there.
        </p>
      ) : (
        <form
          className="tp-form tp-profile-password"
          aria-describedby="tp-profile-password-rule"
          onSubmit={(e) => {
            e.preventDefault();
            profile.send({ type: 'password.changeRequested' });
          }}
        >
          {/* Lets password managers tie the new password to the right account. */}
          <input
            type="text"
            name="username"
            autoComplete="username"
            value={username ?? ''}
            readOnly
            hidden
          />
          <PasswordInput
            profile={profile}
            field="current"
            label="Current password"
            select={selectCurrentPassword}
            autoComplete="current-password"
          />
          <PasswordInput
            profile={profile}
            field="next"
            label="New password"
            select={selectNewPassword}
            autoComplete="new-password"
          />
          <PasswordInput
            profile={profile}
            field="repeat"
            label="New password again"
            select={selectRepeatedPassword}
            autoComplete="new-password"
          />
          <p id="tp-profile-password-rule" className="tp-field-hint tp-muted">
            8 to 256 characters. You stay signed in here.
          </p>
          <div>
            <button type="submit" className={BUTTON} disabled={changing}>
              {changing ? 'Changing…' : 'Change password'}
            </button>
          </div>
          {error !== null && (
            <p role="alert" className="tp-field-message">
              {error}
            </p>
          )}
          <p role="status" className="tp-copied">
            {changed ? 'Your password was changed: use the new one the next time you sign in.' : ''}
          </p>
        </form>
      )}
    </section>
  );
}

function NewKey({ profile, value }: { profile: ProfileActorRef; value: string }) {
  const id = useId();
  const copied = useSelector(profile, selectKeyCopied);
  return (
    <div className="tp-profile-new-key" role="group" aria-labelledby={`${id}-label`}>
      <label id={`${id}-label`} htmlFor={id}>
        Your new API key
      </label>
      <p className="tp-profile-once">
        This key is shown only once: copy it now and keep it safe. It cannot be shown again; if you
        lose it, revoke it and issue another.
      </p>
      <div className="tp-profile-key-value">
        <input
          id={id}
          className="p-inputtext p-component"
          value={value}
          readOnly
          onFocus={(e) => e.target.select()}
        />
        <button
          type="button"
          className={OUTLINED}
          onClick={() => profile.send({ type: 'key.copyRequested' })}
        >
          Copy
        </button>
        <button
          type="button"
          className={OUTLINED}
          onClick={() => profile.send({ type: 'key.dismissed' })}
        >
          Done
        </button>
        <span role="status" className="tp-copied">
          {copied ? 'Copied' : ''}
        </span>
      </div>
    </div>
  );
}

function KeysSection({ profile }: { profile: ProfileActorRef }) {
  const keys = useSelector(profile, selectKeys);
  const newKey = useSelector(profile, selectNewKey);
  const toConfirm = useSelector(profile, selectKeyToConfirm);
  const busy = useSelector(profile, selectKeysBusy);
  const error = useSelector(profile, selectKeyError);
  return (
    <section className="tp-panel" aria-labelledby="tp-profile-keys">
      <h2 id="tp-profile-keys">API keys</h2>
      <p className="tp-muted">
        A key lets a script call the API as you, with the header <code>x-api-key</code>. It cannot
        issue keys or change your password.
      </p>
      {keys.length === 0 ? (
        <p>You have no API keys.</p>
      ) : (
        <ul className="tp-list" aria-label="Your API keys">
          {keys.map((key) => {
            const created = readableDateTime(key.whenCreated);
            return (
              <li key={key.id} className="tp-list-item">
                <span>
                  {key.name || 'API key'}{' '}
                  <span className="tp-muted">
                    created <time dateTime={key.whenCreated}>{created}</time>
                  </span>
                </span>
                {toConfirm === key.id ? (
                  <span className="tp-confirm" role="group" aria-label="Confirm revoking">
                    <span>Revoke this key? Scripts using it stop working.</span>
                    <button
                      type="button"
                      className={`${BUTTON} p-button-danger`}
                      onClick={() => profile.send({ type: 'key.revokeConfirmed' })}
                    >
                      Revoke
                    </button>
                    <button
                      type="button"
                      className={OUTLINED}
                      onClick={() => profile.send({ type: 'key.revokeCancelled' })}
                    >
                      Cancel
                    </button>
                  </span>
                ) : (
                  <button
                    type="button"
                    className={`${OUTLINED} p-button-danger`}
                    aria-label={`Revoke the key created ${created}`}
                    disabled={busy || toConfirm !== null}
                    onClick={() => profile.send({ type: 'key.revokeRequested', keyId: key.id })}
                  >
                    Revoke
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {newKey !== null && <NewKey profile={profile} value={newKey} />}
      <button
        type="button"
        className={BUTTON}
        disabled={busy}
        onClick={() => profile.send({ type: 'key.issueRequested' })}
      >
        Issue a new key
      </button>
      {error !== null && (
        <p role="alert" className="tp-field-message">
          {error}
        </p>
      )}
    </section>
  );
}

/** The layout of the machines' keyboards, which the consoles type on; kept in this browser. */
function KeyboardSection({ profile }: { profile: ProfileActorRef }) {
  const id = useId();
  const layout = useSelector(profile, selectKeyboardLayout);
  return (
    <section className="tp-panel" aria-labelledby="tp-profile-keyboard">
      <h2 id="tp-profile-keyboard">Keyboard</h2>
      <p className="tp-muted" id={`${id}-note`}>
        The layout your machines&apos; keyboards are set to. Consoles type what you type and paste
        as keys of this layout, so that the characters arrive as you meant them. It is kept in this
        browser.
      </p>
      <div className="tp-field">
        <label htmlFor={id}>Keyboard layout of the machines</label>
        <select
          id={id}
          className="p-inputtext p-component"
          aria-describedby={`${id}-note`}
          value={layout}
          onChange={(e) => {
            const chosen = e.target.value;
            if (isKeyboardLayout(chosen))
              profile.send({ type: 'keyboard.layoutChosen', layout: chosen });
          }}
        >
          {KEYBOARD_LAYOUTS.map((l) => (
            <option key={l} value={l}>
              {KEYBOARD_LAYOUT_LABELS[l]}
            </option>
          ))}
        </select>
      </div>
    </section>
  );
}

/** /profile: who the signed-in user is, its password and its API keys (issue 29). */
export function ProfileView({
  name,
  role,
  profile,
}: {
  name: string;
  role: RoleLabel;
  profile: ProfileActorRef;
}) {
  useTitle('Profile');
  const loading = useSelector(profile, selectIsLoading);
  const failed = useSelector(profile, selectLoadFailed);
  const error = useSelector(profile, selectKeyError);
  return (
    <div className="tp-page tp-profile">
      <h1>{name}</h1>
      <dl className="tp-profile-facts">
        <dt>Role</dt>
        <dd>
          {role} <span className="tp-muted">— {ROLE_NOTES[role]}</span>
        </dd>
      </dl>
      {loading && <Spinner label="Loading your profile" />}
      {failed && (
        <div className="tp-error-box" role="alert">
          <p>{error}</p>
          <button
            type="button"
            className={OUTLINED}
            onClick={() => profile.send({ type: 'profile.reloadRequested' })}
          >
            Try again
          </button>
        </div>
      )}
      {!loading && !failed && (
        <div className="tp-profile-sections">
          <PasswordSection profile={profile} />
          <KeysSection profile={profile} />
        </div>
      )}
      <KeyboardSection profile={profile} />
    </div>
  );
}
