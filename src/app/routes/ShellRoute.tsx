import { Outlet } from 'react-router';
import { Shell } from '../../views/shell/Shell';
import { useAppServices } from '../services';

export function ShellRoute() {
  const { settings, auth, sidebar } = useAppServices();
  return (
    <Shell appname={settings.appname} auth={auth} sidebar={sidebar}>
      <Outlet />
    </Shell>
  );
}
