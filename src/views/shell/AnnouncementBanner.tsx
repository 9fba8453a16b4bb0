import { useSelector } from '@xstate/react';
import type { AnnouncementsActorRef } from '../../machines/announcementsMachine';
import { selectAnnouncements } from '../../machines/announcementsMachine.selectors';
import { Icon, piMegaphone, piTimes } from '../common/icons';

/** Administrators' announcements, each until the user dismisses it (wire reference §1.8). */
export function AnnouncementBanner({ announcements }: { announcements: AnnouncementsActorRef }) {
  const shown = useSelector(announcements, selectAnnouncements);
  if (shown.length === 0) return null;
  return (
    <div className="tp-announcements" role="region" aria-label="Announcements">
      {shown.map((a) => (
        <div key={a.id} className="tp-alert tp-alert-info" role="status">
          <Icon shape={piMegaphone} />
          <span className="tp-announcement-text">
            {a.message}
            {a.from && <span className="tp-muted"> — {a.from}</span>}
          </span>
          <button
            type="button"
            className="tp-alert-close"
            aria-label="Dismiss announcement"
            onClick={() => announcements.send({ type: 'announcement.dismissRequested', id: a.id })}
          >
            <Icon shape={piTimes} />
          </button>
        </div>
      ))}
    </div>
  );
}
