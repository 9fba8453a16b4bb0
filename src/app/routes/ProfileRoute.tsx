import { useActorRef, useSelector } from '@xstate/react';
import { useMemo } from 'react';
import { roleLabel } from '../../domain/roleLabel';
import type { Profile } from '../../machines/authTokenMachine';
import { selectProfile, selectRegistrationError } from '../../machines/authTokenMachine.selectors';
import { Spinner } from '../../views/common/Spinner';
import { ProfileView } from '../../views/profile/ProfileView';
import { keyboardLayoutOf, rememberKeyboardLayout } from '../localSettings';
import { useAppServices } from '../services';
import { profileLogic } from '../profileImplementations';

function OwnProfile({ user }: { user: Profile }) {
  const { workspace, inspect, local } = useAppServices();
  const logic = useMemo(
    () =>
      profileLogic(workspace.http, workspace.clipboard, (layout) =>
        rememberKeyboardLayout(local, user.id, layout),
      ),
    [workspace, local, user.id],
  );
  const profile = useActorRef(logic, {
    input: { userId: user.id, keyboardLayout: keyboardLayoutOf(local, user.id) },
    inspect,
  });
  return <ProfileView name={user.name} role={roleLabel(user)} profile={profile} />;
}

/** /profile (signed-in users; loaded on demand): the user as the server registered it. */
export default function ProfileRoute() {
  const { auth } = useAppServices();
  const user = useSelector(auth, selectProfile);
  const registrationError = useSelector(auth, selectRegistrationError);
  if (!user) {
    return registrationError ? (
      <p role="alert" className="tp-page">
        {registrationError}
      </p>
    ) : (
      <Spinner label="Loading your profile" />
    );
  }
  // Another user signing in here is another profile.
  return <OwnProfile key={user.id} user={user} />;
}
