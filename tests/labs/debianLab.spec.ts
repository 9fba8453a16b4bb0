import { expect, test } from '@playwright/test';
import {
  apiOf,
  canvasPixels,
  flagChallenge,
  linkStockTemplate,
  publishWorkspace,
  scoreFlag,
  signedInPage,
} from '../e2e/support';
import {
  bootedToLogin,
  COMMAND_MS,
  CREDENTIALS,
  labServer,
  launch,
  logIn,
  NO_REPLY,
  openConsole,
  run,
  sshRun,
} from './labConsole';

// A lab of two Debian machines, played in the browser on real QEMU machines (issue 31). The author
// links the stock linux-server twice into a workspace: `alpha` and `bravo` on the lab's `lan`, at
// static addresses, with a user and password, and `alpha` with the challenge's generated flag; a
// second workspace has one machine, `charlie`, at another address of the same subnet. A player
// launches the lab and a second person the other; the player logs in on alpha's console with the
// author's credentials, reads the flag file there and scores with it, logs in to bravo by ssh and
// sees its hostname, and cannot reach charlie; on charlie's console its address is the one asked
// for, and alpha is out of its reach too.

const ADDRESSES = { alpha: '10.0.0.11', bravo: '10.0.0.12', charlie: '10.0.0.13' } as const;
type Host = keyof typeof ADDRESSES;
const guestinfo = (host: Host, extra = '') =>
  `${CREDENTIALS};cloud.ip0=${ADDRESSES[host]}/24${extra}`;
const FLAG = /^[0-9a-f]{10}$/;

test('a player logs in on a Debian machine, scores its flag, reaches the other by ssh, and no one else', async ({
  browser,
}) => {
  const server = await labServer();
  const { stateDir } = server;

  try {
    // The author: the lab of two machines, and another of one.
    const author = await signedInPage(browser, server.baseURL, 'creator');
    const api = await apiOf(author);
    const lab = await api<{ id: string }>('POST', 'workspace', { name: 'Debian Lab' });
    await linkStockTemplate(api, lab.id, 'linux-server', {
      name: 'alpha',
      guestinfo: guestinfo('alpha', ';flag=##flag##'),
    });
    await linkStockTemplate(api, lab.id, 'linux-server', {
      name: 'bravo',
      guestinfo: guestinfo('bravo'),
    });
    const challenge = flagChallenge('Two Debian machines are yours.', 'Log in on alpha.');
    await publishWorkspace(api, lab.id, 'Debian Lab', challenge);
    const other = await api<{ id: string }>('POST', 'workspace', { name: 'Other Lab' });
    await linkStockTemplate(api, other.id, 'linux-server', {
      name: 'charlie',
      guestinfo: guestinfo('charlie'),
    });
    await publishWorkspace(api, other.id, 'Other Lab', challenge);

    // The player launches the lab, and the author the other, at the same time.
    const player = await signedInPage(browser, server.baseURL, 'player');
    const [game, otherGame] = await Promise.all([launch(player, lab.id), launch(author, other.id)]);
    expect(game.vms.map((vm) => vm.name).sort()).toEqual(['alpha', 'bravo']);
    expect(otherGame.vms.map((vm) => vm.name)).toEqual(['charlie']);

    // Alpha's console: the author's user logs in, in text mode on the canvas as on the screen.
    const alpha = await openConsole(game.page, game.vmOf('alpha'), stateDir);
    await logIn(alpha);
    await expect.poll(async () => (await canvasPixels(alpha.page)).lit).toBeGreaterThan(2_000);
    await alpha.page.screenshot({ path: test.info().outputPath('alpha-logged-in.png') });

    // The flag file holds the flag the challenge generated for this gamespace (scored at the end:
    // a full score ends the game). The file is the value alone: `echo` ends its line.
    await run(alpha, 'cat /etc/topoplay/guestinfo/flag; echo');
    const flagRow = async () => (await alpha.rows()).find((row) => FLAG.test(row)) ?? '';
    await expect.poll(flagRow, { timeout: COMMAND_MS }).toMatch(FLAG);
    const flag = await flagRow();
    await alpha.page.screenshot({ path: test.info().outputPath('alpha-flag.png') });

    // Bravo, by ssh on the lab network: its hostname, run there.
    await bootedToLogin(stateDir, game.vmOf('bravo'));
    await sshRun(alpha, ADDRESSES.bravo, 'hostname', 'bravo');
    await alpha.page.screenshot({ path: test.info().outputPath('alpha-ssh-bravo.png') });

    // Charlie, in the other gamespace, is out of reach.
    await run(alpha, `ping -c 2 -w 2 ${ADDRESSES.charlie}`);
    await expect.poll(alpha.screen, { timeout: COMMAND_MS }).toMatch(NO_REPLY);

    // On charlie's console: its address is the one asked for, and alpha is out of its reach.
    const charlie = await openConsole(otherGame.page, otherGame.vmOf('charlie'), stateDir);
    await logIn(charlie);
    await run(charlie, 'ip -4 -br addr show dev eth0');
    await expect
      .poll(charlie.screen, { timeout: COMMAND_MS })
      .toMatch(new RegExp(`eth0 +UP +${ADDRESSES.charlie.replace(/\./g, '\\.')}/24`));
    await run(charlie, `ping -c 2 -w 2 ${ADDRESSES.alpha}`);
    await expect.poll(charlie.screen, { timeout: COMMAND_MS }).toMatch(NO_REPLY);
    await charlie.page.screenshot({ path: test.info().outputPath('charlie-ping.png') });

    // The flag scores all the points, which ends the player's game: its machines go.
    await scoreFlag(game.page, flag);
    await alpha.page.close();
    await expect.poll(game.machines, { timeout: 60_000 }).toEqual([]);
  } finally {
    await server.stop();
  }
});
