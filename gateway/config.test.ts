import path from 'node:path';
import { ConfigurationError, loadGatewayConfig } from './config';

describe('loadGatewayConfig', () => {
  it('gives the documented defaults', () => {
    const config = loadGatewayConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8787,
      databasePath: path.resolve('./data/gateway.db'),
      sqliteSync: 'full',
      settleIntervalMs: 30_000,
      keyPepper: undefined,
    });
  });

  it('reads every variable, treating empty strings as unset', () => {
    const config = loadGatewayConfig({
      GATEWAY_HOST: '0.0.0.0',
      GATEWAY_PORT: '9999',
      GATEWAY_DB: '/tmp/x/gateway.db',
      GATEWAY_SQLITE_SYNC: 'normal',
      GATEWAY_SETTLE_INTERVAL_MS: '100',
      GATEWAY_SIM_TOKENS_PER_SECOND: '0',
      GATEWAY_MAX_BODY_BYTES: '4096',
      GATEWAY_LOG_LEVEL: 'silent',
      GATEWAY_KEY_PEPPER: '',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9999,
      databasePath: '/tmp/x/gateway.db',
      sqliteSync: 'normal',
      settleIntervalMs: 100,
      simulatedTokensPerSecond: 0,
      maxBodyBytes: 4096,
      logLevel: 'silent',
      keyPepper: undefined,
    });
  });

  it.each([
    ['GATEWAY_PORT', 'abc'],
    ['GATEWAY_PORT', '70000'],
    ['GATEWAY_PORT', '80.5'],
    ['GATEWAY_SETTLE_INTERVAL_MS', '50'],
    ['GATEWAY_SETTLE_INTERVAL_MS', 'soon'],
    ['GATEWAY_SIM_TOKENS_PER_SECOND', '-1'],
    ['GATEWAY_MAX_BODY_BYTES', '10'],
    ['GATEWAY_LOG_LEVEL', 'loud'],
    ['GATEWAY_SQLITE_SYNC', 'off'],
    ['GATEWAY_KEY_PEPPER', 'short'],
    ['GATEWAY_ADMIN_TOKEN', 'x'.repeat(31)],
  ])('throws naming %s for the bad value %j', (variable, value) => {
    expect(() => loadGatewayConfig({ [variable]: value })).toThrow(ConfigurationError);
    expect(() => loadGatewayConfig({ [variable]: value })).toThrow(new RegExp(`^${variable}: `));
  });

  it('takes an operator token of 32 or more characters, and none by default', () => {
    expect(loadGatewayConfig({}).adminToken).toBeUndefined();
    expect(loadGatewayConfig({ GATEWAY_ADMIN_TOKEN: '' }).adminToken).toBeUndefined();
    const token = 'o'.repeat(32);
    expect(loadGatewayConfig({ GATEWAY_ADMIN_TOKEN: token }).adminToken).toBe(token);
  });

  describe('tracing (the standard OpenTelemetry variables)', () => {
    it('is off with no endpoint, or with OTEL_SDK_DISABLED', () => {
      expect(loadGatewayConfig({}).tracing).toBeNull();
      expect(
        loadGatewayConfig({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
          OTEL_SDK_DISABLED: 'true',
        }).tracing,
      ).toBeNull();
    });

    it('posts to <endpoint>/v1/traces, or to the traces endpoint, with the headers given', () => {
      expect(
        loadGatewayConfig({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
          OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D,tenant = blue',
          OTEL_SERVICE_NAME: 'gw-eu',
          OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
          OTEL_TRACES_SAMPLER_ARG: '0.25',
        }).tracing,
      ).toMatchObject({
        url: 'http://collector:4318/v1/traces',
        headers: { 'x-api-key': 'abc=', tenant: 'blue' },
        serviceName: 'gw-eu',
        sampler: 'parentbased_traceidratio',
        samplerRatio: 0.25,
        maxQueueSize: 2_048,
        captureContent: false,
      });
      expect(
        loadGatewayConfig({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/in',
        }).tracing?.url,
      ).toBe('http://traces:9999/in');
    });

    it.each([
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
      ['OTEL_TRACES_SAMPLER', 'sometimes'],
      ['OTEL_TRACES_SAMPLER_ARG', '2'],
      ['OTEL_EXPORTER_OTLP_HEADERS', 'no-equals-sign'],
      ['OTEL_EXPORTER_OTLP_HEADERS', 'bad=%E0%A4%A'],
    ])('refuses %s=%s, naming it', (variable, value) => {
      const environment = {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        [variable]: value,
      };
      expect(() => loadGatewayConfig(environment)).toThrow(new RegExp(`^${variable}: `));
    });
  });
});
