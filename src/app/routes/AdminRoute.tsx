import { useParams } from 'react-router';
import { AdminView, isAdminSection, type AdminSection } from '../../views/admin/AdminView';
import { EventLogView } from '../../views/admin/EventLogView';
import NotFoundView from '../../views/notFound/NotFoundView';
import type { EventLog } from '../eventLog';
import { saveBlob } from '../saveBlob';
import { DashboardSection, LogSection, MachinesSection } from './adminSections';
import { useAppServices } from '../services';
import { UsersSection } from './UsersSection';
import { TemplatesSection } from './TemplatesSection';
import { GamespaceBrowserSection } from './GamespaceBrowserRoute';

/** Saves the whole event log as a JSON file. */
function downloadEventLog(eventLog: EventLog): void {
  const blob = new Blob([eventLog.toJSON()], { type: 'application/json' });
  saveBlob(blob, `topoplay-events-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
}

function Section({ section }: { section: AdminSection }) {
  const { eventLog } = useAppServices();
  switch (section) {
    case '':
      return <DashboardSection />;
    case 'gamespaces':
      return <GamespaceBrowserSection fullAdminView />;
    case 'users':
      return <UsersSection />;
    case 'templates':
      return <TemplatesSection />;
    case 'machines':
      return <MachinesSection />;
    case 'log':
      return <LogSection />;
    case 'events':
      return (
        <EventLogView
          subscribe={eventLog.subscribe}
          entries={eventLog.entries}
          onExport={() => downloadEventLog(eventLog)}
        />
      );
  }
}

/** /admin and /admin/{section} (admins only; loaded on demand). */
export default function AdminRoute() {
  const { section = '' } = useParams();
  if (!isAdminSection(section)) return <NotFoundView />;
  return (
    <AdminView section={section}>
      <Section section={section} />
    </AdminView>
  );
}
