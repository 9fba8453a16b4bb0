import { expect, test } from '@playwright/test';
import {
  apiOf,
  flagChallenge,
  linkStockTemplate,
  publishWorkspace,
  signedInPage,
} from '../e2e/support';
import {
  bootedToLogin,
  COMMAND_MS,
  controllerOf,
  CREDENTIALS,
  labServer,
  launch,
  logIn,
  NO_REPLY,
  openConsole,
  run,
  sshRun,
} from './labConsole';

// The router stock image between two lab networks, on real QEMU machines: `client` on lan
// (10.0.0.21/24, gateway the router's 10.0.0.1), `router` (eth0 on lan, eth1 on wan) and `server`
// on wan (192.168.50.10/24, no gateway). Nothing serves DHCP on wan, so the player gives the
// router its wan address on its console (the author's user may sudo); the client then reaches the
// server through the router, masqueraded, by ping and by ssh; with the router stopped it cannot.

const CLIENT = '10.0.0.21';
const ROUTER_WAN = '192.168.50.1';
const SERVER = '192.168.50.10';

test('a machine on lan reaches one on wan only through the router', async ({ browser }) => {
  const server = await labServer();
  try {
    const author = await signedInPage(browser, server.baseURL, 'creator');
    const api = await apiOf(author);
    const lab = await api<{ id: string }>('POST', 'workspace', { name: 'Routed Lab' });
    await linkStockTemplate(api, lab.id, 'linux-server', {
      name: 'client',
      guestinfo: `${CREDENTIALS};cloud.ip0=${CLIENT}/24;cloud.gw0=10.0.0.1`,
    });
    await linkStockTemplate(api, lab.id, 'router', {
      name: 'router',
      guestinfo: `${CREDENTIALS};cloud.sudo=true`,
    });
    await linkStockTemplate(api, lab.id, 'linux-server', {
      name: 'server',
      networks: 'wan',
      guestinfo: `${CREDENTIALS};cloud.ip0=${SERVER}/24`,
    });
    await publishWorkspace(
      api,
      lab.id,
      'Routed Lab',
      flagChallenge('A router between lan and wan.', 'Route.'),
    );

    const player = await signedInPage(browser, server.baseURL, 'player');
    const game = await launch(player, lab.id);
    expect(game.vms.map((vm) => vm.name).sort()).toEqual(['client', 'router', 'server']);

    // The router's wan address, given by the player.
    const router = await openConsole(player, game.vmOf('router'), server.stateDir);
    await logIn(router);
    await run(router, `sudo ip addr add ${ROUTER_WAN}/24 dev eth1`);
    await run(router, 'ip -4 -br addr');
    await expect
      .poll(router.screen, { timeout: COMMAND_MS })
      .toMatch(/eth0 +UP +10\.0\.0\.1\/24[\s\S]*eth1 +UP +192\.168\.50\.1\/24/);
    await router.page.screenshot({ path: test.info().outputPath('router-addresses.png') });

    // The client reaches the server through it: ping, and ssh runs `hostname` there.
    const client = await openConsole(player, game.vmOf('client'), server.stateDir);
    await logIn(client);
    await bootedToLogin(server.stateDir, game.vmOf('server'));
    await run(client, `ping -c 3 -w 10 ${SERVER}`);
    await expect
      .poll(client.screen, { timeout: COMMAND_MS })
      .toMatch(/3 packets transmitted, [1-3] received/);
    await sshRun(client, SERVER, 'hostname', 'server');
    await client.page.screenshot({ path: test.info().outputPath('client-ssh-server.png') });

    // The router stopped, the server is out of the client's reach.
    await router.page.close();
    const routerControls = controllerOf(player, 'router');
    await routerControls.getByRole('button', { name: 'Stop' }).click();
    await expect(routerControls.getByText('Off')).toBeVisible({ timeout: 60_000 });
    await run(client, `ping -c 2 -w 2 ${SERVER}`);
    await expect.poll(client.screen, { timeout: COMMAND_MS }).toMatch(NO_REPLY);
    await client.page.screenshot({ path: test.info().outputPath('client-no-router.png') });
  } finally {
    await server.stop();
  }
});
