/**
 * A request and response just real enough for the API's error handler (server/api/errors.ts):
 * what it sends (status, body, headers) and logs, and the error passed to `handle`.
 */
import { vi } from "vitest";
import type { NextFunction, Request, Response } from "express";
import { apiErrors } from "../../server/api/errors";

export function fakeExchange(headers: Record<string, string> = {}, headersSent = false, request: Record<string, unknown> = {}) {
  const log = { warn: vi.fn(), error: vi.fn(), info: vi.fn() };
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: { ...headers } };
  const res = {
    headersSent,
    hasHeader: (name: string) => name.toLowerCase() in sent.headers,
    setHeader(name: string, value: string) {
      sent.headers[name.toLowerCase()] = value;
      return res;
    },
    status(code: number) {
      sent.status = code;
      return res;
    },
    json(body: unknown) {
      sent.body = body;
      return res;
    },
  };
  const next = vi.fn() as unknown as NextFunction & ReturnType<typeof vi.fn>;
  const handle = (error: unknown) => apiErrors()(error, { log, ...request } as unknown as Request, res as unknown as Response, next);
  return { log, sent, next, handle };
}
