import { useSelector } from '@xstate/react';
import { NavLink } from 'react-router';
import { roleLabel } from '../../domain/roleLabel';
import type { AuthTokenActorRef } from '../../machines/authTokenMachine';
import { selectProfile } from '../../machines/authTokenMachine.selectors';
import { Icon, piUser } from '../common/icons';
import './signedInUser.css';

/**
 * Who is signed in, with their role, as the link to their profile (issue 29). Nothing until the
 * server has registered the user: the name and role are the server's, not the token's.
 * On a narrow screen the name is hidden; the icon and the role keep the link reachable.
 */
export function SignedInUser({ auth }: { auth: AuthTokenActorRef }) {
  const profile = useSelector(auth, selectProfile);
  if (!profile) return null;
  const role = roleLabel(profile);
  return (
    <NavLink
      to="/profile"
      className={({ isActive }) =>
        isActive
          ? 'tp-topbar-link tp-topbar-link-active tp-signed-in'
          : 'tp-topbar-link tp-signed-in'
      }
      title={`Your profile: ${profile.name}, ${role}`}
    >
      <Icon shape={piUser} />
      <span className="tp-signed-in-name">{profile.name} </span>
      <span className="tp-signed-in-role">{role}</span>
    </NavLink>
  );
}
