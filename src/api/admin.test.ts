import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { getHypervisorStatus } from './admin';
import { INVALID_RESPONSE_MESSAGE } from './http';
import { recordingClient } from './testing/recordingClient';

const signal = () => new AbortController().signal;

describe('hypervisor status call', () => {
  it('reads the status of a driver without caps, and one this build does not name', async () => {
    const status = {
      kind: 'cluster-of-tomorrow',
      acceleration: 'KVM',
      running: 3,
      maxRunning: null,
      memoryMiBInUse: 768,
      maxMemoryMiB: null,
      orphans: 1,
    };
    const { http, calls } = recordingClient(200, status);
    expect(await getHypervisorStatus(http)(signal())()).toEqual(E.right(status));
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /api/admin/hypervisor']);
  });

  it('reports a status without its figures as an invalid response', async () => {
    const { http } = recordingClient(200, { kind: 'sim' });
    expect(await getHypervisorStatus(http)(signal())()).toEqual(
      E.left({ status: 200, message: INVALID_RESPONSE_MESSAGE }),
    );
  });
});
