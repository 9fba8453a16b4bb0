import type { Alert } from '../api/alerts';
import { alertSentence } from '../domain/alerts';
import { localTimeOf } from '../domain/gameEvents';
import type { AlertsSnapshot } from './alertsMachine';

/** An alert as the list shows it. */
export interface AlertLine {
  readonly id: string;
  /** Local `YYYY-MM-DD HH:MM:SS`. */
  readonly time: string;
  /** `Team Blue submitted the answer generated for Team Red — Question 2 of Set 1`. */
  readonly text: string;
  readonly kind: Alert['kind'];
  /** The answer submitted. */
  readonly answer: string;
  /** The question, shortened. */
  readonly question: string;
}

/** The alerts newest first, as last loaded; null until they first arrive. */
export const selectAlerts = (s: AlertsSnapshot): Alert[] | null => s.context.alerts;

export const selectAlertsError = (s: AlertsSnapshot): string | null => s.context.error;

export const selectIsAlertsLoading = (s: AlertsSnapshot): boolean => s.hasTag('loading');

/** Whether new alerts show as they are recorded (one workspace's list), not on the next reload. */
export const selectIsAlertsLive = (s: AlertsSnapshot): boolean => s.hasTag('live');

export const alertLine = (alert: Alert): AlertLine => ({
  id: alert.id,
  time: localTimeOf(alert.at),
  text: alertSentence({
    kind: alert.kind,
    submitterNames: alert.submitterNames,
    ownerNames: alert.ownerNames,
    sectionIndex: alert.question.sectionIndex,
    sectionName: alert.question.sectionName,
    questionIndex: alert.question.questionIndex,
  }),
  kind: alert.kind,
  answer: alert.answer,
  question: alert.question.text,
});

export const alertLines = (alerts: Alert[] | null): AlertLine[] | null =>
  alerts === null ? null : alerts.map(alertLine);
