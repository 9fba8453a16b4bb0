import { DISK_STORAGE, ISO_STORAGE } from './config';
import { exportLines } from './settings';
import { startPveSimulator } from './simulator';

// Runs the Topoplay PVE API SIMULATOR on its own (`tsx tests/pvesim/main.ts`) for a manual
// end-to-end check of HYPERVISOR=proxmox: it listens on 127.0.0.1:PVESIM_PORT (default 8006),
// over https with a fresh self-signed certificate unless PVESIM_HTTP=1, and prints the settings
// to start Topoplay with. It is not Proxmox VE and says so in every line it logs.
//   PVESIM_PORT, PVESIM_HTTP=1, PVESIM_TOKEN_SECRET (default random),
//   PVESIM_ROOT_PASSWORD (enables root@pam tickets), PVESIM_QUIET=1 (no request log).

const port = Number(process.env.PVESIM_PORT ?? '8006');
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(
    `PVE API simulator: PVESIM_PORT must be a port number, got '${process.env.PVESIM_PORT}'`,
  );
  process.exit(2);
}

const zone = 'topoplay';
const simulator = await startPveSimulator({
  tls: process.env.PVESIM_HTTP !== '1',
  port,
  zone,
  rootPassword: process.env.PVESIM_ROOT_PASSWORD ?? null,
  ...(process.env.PVESIM_TOKEN_SECRET ? { tokenSecret: process.env.PVESIM_TOKEN_SECRET } : {}),
  log: process.env.PVESIM_QUIET === '1' ? undefined : (line) => console.log(line),
});

const template = simulator.vms().find((vm) => vm.template);
console.log(
  [
    `PVE API simulator (Topoplay's test double, NOT Proxmox VE) listening on ${simulator.url}`,
    '',
    'Paste these lines into the shell that starts Topoplay (then `npm start`):',
    ...exportLines([
      ['HYPERVISOR', 'proxmox'],
      ['PROXMOX_URL', simulator.url],
      ['PROXMOX_TOKEN_ID', simulator.tokenId],
      ['PROXMOX_TOKEN_SECRET', simulator.tokenSecret],
      ...(simulator.fingerprint ? [['PROXMOX_FINGERPRINT', simulator.fingerprint] as const] : []),
      ['PROXMOX_STORAGE', DISK_STORAGE],
      ['PROXMOX_ISO_STORAGE', ISO_STORAGE],
      ['PROXMOX_SDN_ZONE', zone],
    ]),
    '',
    template
      ? `Simulated nodes pve1, pve2, pve3; template ${template.vmid} '${template.name}' on ${template.node}.`
      : 'Simulated nodes pve1, pve2, pve3; no template.',
  ].join('\n'),
);

const stop = () => {
  console.log('PVE API simulator: stopping');
  void simulator.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
