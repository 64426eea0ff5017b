/**
 * A real pino logger (server/logger.ts) whose lines are kept in memory: the tests read them as
 * parsed objects (`lines`) and as the text written (`raw`, to check nothing secret reached it).
 */
import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../server/logger";
import type { Config } from "../../server/config";

export type LogLine = Record<string, unknown> & { level: string; msg?: string; event?: string; requestId?: string };

export interface CapturedLogs {
  logger: Logger;
  lines: LogLine[];
  raw: string[];
}

export function captureLogs(config: Pick<Config, "LOG_LEVEL" | "NODE_ENV"> = { LOG_LEVEL: "info", NODE_ENV: "production" }): CapturedLogs {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const text = chunk.toString("utf8");
      raw.push(text);
      for (const line of text.split("\n").filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      callback();
    },
  });
  return { logger: createLogger(config, sink), lines, raw };
}
