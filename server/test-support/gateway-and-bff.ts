/**
 * The proxy tests' shared bed: a fake gateway and a BFF in front of it with one profile, `main`,
 * both fresh for each test so no handler or recorded request leaks into the next.
 */
import { afterEach, beforeEach } from 'vitest';
import { startFakeGateway, type FakeGateway, type FakeHandler } from './fake-gateway';
import { fakeKey, startTestBff, type TestBff } from './harness';

export interface GatewayAndBff {
  /** The current test's fake gateway. */
  readonly gateway: FakeGateway;
  /** The current test's BFF, pointed at `gateway`. */
  readonly bff: TestBff;
  /** The `main` profile's key, the same for the whole file. */
  readonly key: string;
}

/** Registers the hooks that start and close both around each test; call at a file's top level. */
export function useGatewayAndBff(handler?: FakeHandler): GatewayAndBff {
  let gateway: FakeGateway | undefined;
  let bff: TestBff | undefined;
  const key = fakeKey();
  beforeEach(async () => {
    gateway = await startFakeGateway(handler);
    bff = await startTestBff({ gatewayBaseUrl: gateway.baseUrl, profiles: { main: key } });
  });
  afterEach(async () => {
    await bff?.close();
    await gateway?.close();
  });
  return {
    get gateway() {
      if (!gateway) throw new Error('The fake gateway runs only inside a test.');
      return gateway;
    },
    get bff() {
      if (!bff) throw new Error('The BFF runs only inside a test.');
      return bff;
    },
    key,
  };
}
