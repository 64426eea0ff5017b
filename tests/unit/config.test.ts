import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config";

describe("loadConfig", () => {
  it("gives production defaults for an empty environment", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      NODE_ENV: "production",
      HOST: "0.0.0.0",
      PORT: 3000,
      LOG_LEVEL: "info",
      TRUST_PROXY: false,
      KEEP_ALIVE_TIMEOUT_MS: 65_000,
      SHUTDOWN_TIMEOUT_MS: 10_000,
    });
    expect(config.KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    // Headers trickled for more than 10 s are a slowloris; the request timeout covers them too.
    expect(config.HEADERS_TIMEOUT_MS).toBe(10_000);
    expect(config.HEADERS_TIMEOUT_MS).toBeLessThanOrEqual(config.REQUEST_TIMEOUT_MS);
  });

  it("refuses a headers timeout longer than the request timeout, which already covers the headers", () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: "40000", REQUEST_TIMEOUT_MS: "30000" })).toThrow(/HEADERS_TIMEOUT_MS: at most REQUEST_TIMEOUT_MS \(30000\)/);
    expect(loadConfig({ HEADERS_TIMEOUT_MS: "30000", REQUEST_TIMEOUT_MS: "30000" }).HEADERS_TIMEOUT_MS).toBe(30_000);
  });

  it("keeps every lead-check provider off by default, needs LeadiD's campaign script to switch it on, and caps the phone cache at the FTC's 31 days", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ TRUSTEDFORM: "off", JORNAYA: "off", TRUSTEDFORM_CERT_ORIGIN: "https://cert.trustedform.com", CHECK_TIMEOUT_MS: 2_000, CHECK_CACHE_DAYS: 7 });
    for (const key of ["TRUSTEDFORM_API_KEY", "JORNAYA_ACCOUNT_CODE", "LITIGATOR_API_USER", "LITIGATOR_API_KEY", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN"] as const) expect(config[key]).toBeUndefined();
    expect(() => loadConfig({ JORNAYA: "on" })).toThrow(/JORNAYA_SCRIPT_URL: required when JORNAYA is on/);
    expect(loadConfig({ JORNAYA: "on", JORNAYA_SCRIPT_URL: "https://create.lidstatic.com/campaign/abc.js?snippet_version=2" }).JORNAYA).toBe("on");
    expect(() => loadConfig({ CHECK_CACHE_DAYS: "32" })).toThrow(/CHECK_CACHE_DAYS/);
    // Only the origin of the certificate host is kept: a certificate URL is compared with it exactly.
    expect(loadConfig({ TRUSTEDFORM_CERT_ORIGIN: "https://cert.trustedform.com/" }).TRUSTEDFORM_CERT_ORIGIN).toBe("https://cert.trustedform.com");
  });

  it("reads PORT, HOST and the trust-proxy forms Express understands", () => {
    expect(loadConfig({ PORT: "8080", HOST: "127.0.0.1" })).toMatchObject({ PORT: 8080, HOST: "127.0.0.1" });
    expect(loadConfig({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "loopback, 10.0.0.0/8" }).TRUST_PROXY).toEqual(["loopback", "10.0.0.0/8"]);
    expect(loadConfig({ TRUST_PROXY: "false" }).TRUST_PROXY).toBe(false);
  });

  it("sends 64 deliveries at once and polls every 250 ms by default, and refuses a poll that would hammer the database", () => {
    expect(loadConfig({})).toMatchObject({ DELIVERY_CONCURRENCY: 64, DELIVERY_POLL_MS: 250 });
    expect(loadConfig({ DELIVERY_POLL_MS: "1000" }).DELIVERY_POLL_MS).toBe(1_000);
    expect(() => loadConfig({ DELIVERY_POLL_MS: "0" })).toThrow(/DELIVERY_POLL_MS/);
  });

  it("strips a trailing slash from PUBLIC_BASE_URL", () => {
    expect(loadConfig({ PUBLIC_BASE_URL: "https://www.example.com/" }).PUBLIC_BASE_URL).toBe("https://www.example.com");
  });

  it("names every bad variable in one error", () => {
    let error: unknown;
    try {
      loadConfig({ PORT: "http", LOG_LEVEL: "loud", TRUST_PROXY: "true", PUBLIC_BASE_URL: "javascript:alert(1)" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ["PORT", "LOG_LEVEL", "TRUST_PROXY", "PUBLIC_BASE_URL"]) expect(message).toContain(name);
  });

  it("refuses a trust-proxy list with something that is not an address", () => {
    expect(() => loadConfig({ TRUST_PROXY: "loopback, evil.example" })).toThrow(/evil\.example/);
  });

  it("runs the console on loopback port 3001 by default, on another port or none at all when told", () => {
    expect(loadConfig({})).toMatchObject({ ADMIN_HOST: "127.0.0.1", ADMIN_PORT: 3001, ADMIN_SESSION_HOURS: 12 });
    expect(loadConfig({ ADMIN_PORT: "0" }).ADMIN_PORT).toBe(0);
    expect(loadConfig({ ADMIN_PORT: "off" }).ADMIN_PORT).toBe("off");
    expect(() => loadConfig({ ADMIN_PORT: "public" })).toThrow(/ADMIN_PORT/);
  });

  it("stores funnel events by default, with a bounded buffer, 13 months' retention and days in US Eastern", () => {
    expect(loadConfig({})).toMatchObject({ ANALYTICS_EVENTS: "on", ANALYTICS_BUFFER_MAX: 20_000, ANALYTICS_FLUSH_MS: 1_000, ANALYTICS_RETENTION_DAYS: 396, REPORT_TIME_ZONE: "America/New_York" });
    expect(loadConfig({ REPORT_TIME_ZONE: "UTC", ANALYTICS_EVENTS: "off" })).toMatchObject({ REPORT_TIME_ZONE: "UTC", ANALYTICS_EVENTS: "off" });
    expect(() => loadConfig({ REPORT_TIME_ZONE: "Mars/Olympus_Mons" })).toThrow(/REPORT_TIME_ZONE: must be an IANA time zone/);
    expect(() => loadConfig({ ANALYTICS_BUFFER_MAX: "0" })).toThrow(/ANALYTICS_BUFFER_MAX/);
  });
});
