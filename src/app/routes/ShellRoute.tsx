import { Outlet } from 'react-router';
import { Shell } from '../../views/shell/Shell';
import { useAppServices } from '../services';

export function ShellRoute() {
  const { settings, auth, hub, sidebar, browser, announcements } = useAppServices();
  return (
    <Shell
      appname={settings.appname}
      auth={auth}
      hub={hub}
      sidebar={sidebar}
      browser={browser}
      announcements={announcements}
      uploadEnabled={settings.enable_upload}
    >
      <Outlet />
    </Shell>
  );
}
