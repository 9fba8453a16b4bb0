// @ts-check
/** The switch's log: one timestamped line on stderr, which the server sends to switch.log. */

/** @param {string} message */
export const log = (message) => process.stderr.write(`${new Date().toISOString()} ${message}\n`);
