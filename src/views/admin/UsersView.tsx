import { useSelector } from '@xstate/react';
import { useId, useState } from 'react';
import type { AnyActorRef } from 'xstate';
import {
  USER_ROLES,
  type AdminUser,
  type UserAdminActorRef,
  type UserAdminSnapshot,
  type UserDraft,
} from '../../machines/userAdminMachine';
import type { PagedSearchActorRef } from '../../machines/pagedSearchMachine';
import { selectItems, selectSearchError } from '../../machines/pagedSearchMachine.selectors';
import { selectAccountNotice, selectUserNotice } from '../../machines/userAdminMachine.selectors';
import { LIMIT_AT_ZERO, readableDateTime } from '../../domain/userLimits';
import './admin.css';

// The admin Users section: a search over users, a form to add one, and the open user's editor.

const ROLE_FILTERS = ['administrator', 'observer', 'creator', 'builder'] as const;
const LIMITS = [
  ['workspaceLimit', 'Workspace limit'],
  ['gamespaceLimit', 'Gamespace limit'],
  ['gamespaceMaxMinutes', 'Gamespace max minutes'],
  ['gamespaceCleanupGraceMinutes', 'Cleanup grace minutes'],
] as const;

const selectSearch = (s: UserAdminSnapshot) =>
  s.children.search as PagedSearchActorRef<AdminUser> | undefined;

function UserList({ search, admin }: { search: AnyActorRef; admin: UserAdminActorRef }) {
  const ref = search as PagedSearchActorRef<AdminUser>;
  const items = useSelector(ref, selectItems);
  const error = useSelector(ref, selectSearchError);
  const term = useSelector(ref, (s) => s.context.term);
  const filter = useSelector(ref, (s) => s.context.filter);
  const toggle = (role: string) =>
    ref.send({
      type: 'search.filterChanged',
      filter: filter.includes(role) ? filter.filter((f) => f !== role) : [...filter, role],
    });
  return (
    <div>
      <input
        type="search"
        aria-label="term"
        placeholder="term"
        value={term}
        onChange={(e) => ref.send({ type: 'search.termChanged', term: e.target.value })}
      />
      {ROLE_FILTERS.map((role) => (
        <label key={role}>
          <input type="checkbox" checked={filter.includes(role)} onChange={() => toggle(role)} />
          {role}
        </label>
      ))}
      {error && <p role="alert">{error}</p>}
      <ul aria-label="Users">
        {items.map((user) => (
          <li key={user.id}>
            <button type="button" onClick={() => admin.send({ type: 'user.selected', user })}>
              {user.name || user.id}
            </button>{' '}
            <span className="tp-muted">{user.role}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function AccountPanel({ admin }: { admin: UserAdminActorRef }) {
  const account = useSelector(admin, (s) => s.context.account);
  const canToggle = useSelector(admin, (s) => s.can({ type: 'account.disabledToggled' }));
  // One's own account is never disabled (the server refuses it too): the panel says why.
  const ownEnabled = useSelector(
    admin,
    (s) => s.context.user?.id === s.context.selfId && s.context.account?.disabled === false,
  );
  const noteId = useId();
  const notice = useSelector(admin, selectAccountNotice);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  return (
    <section aria-label="Local account">
      <h4>Local account</h4>
      <p>
        {account?.username
          ? `Signs in as ${account.username}${account.disabled ? ' (disabled)' : ''}`
          : 'No local sign-in yet: setting a password creates one.'}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          admin.send({ type: 'password.setRequested', password, username });
          setPassword('');
        }}
      >
        {!account?.username && (
          <label>
            Username <input value={username} onChange={(e) => setUsername(e.target.value)} />
          </label>
        )}
        <label>
          New password{' '}
          <input
            type="password"
            autoComplete="new-password"
            minLength={8}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <button type="submit">Set password</button>
        {notice && <span role="status">{notice}</span>}
      </form>
      {account?.username && (
        <button
          type="button"
          disabled={!canToggle}
          aria-describedby={ownEnabled ? noteId : undefined}
          onClick={() => admin.send({ type: 'account.disabledToggled' })}
        >
          {account.disabled ? 'Enable account' : 'Disable account'}
        </button>
      )}
      {account?.username && ownEnabled && (
        <p id={noteId} className="tp-muted">
          You cannot disable your own account: another administrator can.
        </p>
      )}
    </section>
  );
}

function KeysPanel({ admin, owner }: { admin: UserAdminActorRef; owner: string }) {
  const keys = useSelector(admin, (s) => s.context.keys);
  const newKey = useSelector(admin, (s) => s.context.newKey);
  return (
    <section aria-label="API keys">
      <h4>API keys</h4>
      <p className="tp-muted">
        {keys.length === 0
          ? `${owner} has no API key.`
          : `Each key below acts as ${owner}; it was issued by the person named beside it.`}
      </p>
      {/* A key's name is who issued it; the key acts as the user it belongs to. */}
      <ul className="tp-admin-keys" aria-label={`API keys of ${owner}`}>
        {keys.map((key) => (
          <li key={key.id}>
            <span>
              Created <time dateTime={key.whenCreated}>{readableDateTime(key.whenCreated)}</time>
            </span>
            {key.name && <span className="tp-muted">issued by {key.name}</span>}
            <button
              type="button"
              aria-label={`Delete the key created ${readableDateTime(key.whenCreated)}`}
              onClick={() => admin.send({ type: 'key.deleteRequested', keyId: key.id })}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => admin.send({ type: 'key.createRequested' })}>
        New API key
      </button>
      {newKey && (
        <div role="status">
          <p>Copy this key now: it is not shown again.</p>
          <input readOnly aria-label="New API key value" value={newKey} />
          <button type="button" onClick={() => void navigator.clipboard?.writeText(newKey)}>
            Copy
          </button>
          <button type="button" onClick={() => admin.send({ type: 'key.dismissed' })}>
            Done
          </button>
        </div>
      )}
    </section>
  );
}

function UserEditor({ admin }: { admin: UserAdminActorRef }) {
  const draft = useSelector(admin, (s) => s.context.draft);
  const user = useSelector(admin, (s) => s.context.user);
  const confirming = useSelector(admin, (s) => s.matches({ editing: 'confirmingDelete' }));
  const notice = useSelector(admin, selectUserNotice);
  if (!draft || !user) return null;
  const change = (patch: Partial<UserDraft>) => admin.send({ type: 'draft.changed', draft: patch });
  return (
    <section aria-label="User">
      <h3>{user.name || user.id}</h3>
      <p className="tp-muted">{user.id}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          admin.send({ type: 'save.requested' });
        }}
      >
        <label>
          Name <input value={draft.name} onChange={(e) => change({ name: e.target.value })} />
        </label>
        <label>
          Role{' '}
          <select value={draft.role} onChange={(e) => change({ role: e.target.value })}>
            {USER_ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </label>
        <label>
          Scope <input value={draft.scope} onChange={(e) => change({ scope: e.target.value })} />
        </label>
        <fieldset className="tp-admin-limits">
          <legend>Limits</legend>
          {LIMITS.map(([field, label]) => (
            <div key={field} className="tp-admin-limit">
              <label>
                {label}{' '}
                <input
                  type="number"
                  min={0}
                  value={draft[field]}
                  aria-describedby={`tp-limit-${field}`}
                  onChange={(e) => change({ [field]: Math.max(0, Number(e.target.value) || 0) })}
                />
              </label>
              <span id={`tp-limit-${field}`} className="tp-field-hint">
                {LIMIT_AT_ZERO[field]}
              </span>
            </div>
          ))}
        </fieldset>
        <label>
          <input
            type="checkbox"
            checked={draft.isRegistrar}
            onChange={(e) => change({ isRegistrar: e.target.checked })}
          />
          May register others for games
        </label>
        <button type="submit">Save</button>
        <button type="button" onClick={() => admin.send({ type: 'user.closed' })}>
          Close
        </button>
        {notice && <span role="status">{notice}</span>}
      </form>
      {confirming ? (
        <p>
          Delete this user?{' '}
          <button type="button" onClick={() => admin.send({ type: 'delete.confirmed' })}>
            Confirm delete
          </button>
          <button type="button" onClick={() => admin.send({ type: 'delete.cancelled' })}>
            Cancel
          </button>
        </p>
      ) : (
        <button type="button" onClick={() => admin.send({ type: 'delete.requested' })}>
          Delete user
        </button>
      )}
      <KeysPanel admin={admin} owner={user.name || user.id} />
      <AccountPanel admin={admin} />
    </section>
  );
}

export function UsersView({ admin }: { admin: UserAdminActorRef }) {
  const search = useSelector(admin, selectSearch);
  const error = useSelector(admin, (s) => s.context.error);
  const busy = useSelector(admin, (s) => s.hasTag('busy'));
  const [name, setName] = useState('');
  return (
    <section className="tp-admin-users" aria-label="Users" aria-busy={busy}>
      <h2>Users</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          admin.send({ type: 'user.addRequested', name });
          setName('');
        }}
      >
        <label>
          New user name <input value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit">Add user</button>
      </form>
      {error && <p role="alert">{error}</p>}
      {search && <UserList search={search} admin={admin} />}
      <UserEditor admin={admin} />
    </section>
  );
}
