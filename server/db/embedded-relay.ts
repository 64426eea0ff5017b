/**
 * The embedded store's socket (decision 033): PGlite is one PostgreSQL backend in one process.
 * The database process (server/db/embedded-main.ts) opens it and lets clients reach it over a
 * Unix socket with PostgreSQL's own wire protocol: the server's pools and the ops commands then
 * use the `pg` driver exactly as on PostgreSQL. PGlite itself speaks the protocol
 * (`execProtocolRaw`: the startup, simple and extended queries, errors); this module only frames
 * the byte stream into messages and decides whose turn it is.
 *
 * One session, many connections: a connection takes the session with its first message and
 * keeps it until PGlite answers ReadyForQuery with status idle ('I') and the connection has
 * nothing more queued. So an extended-protocol exchange (Parse … Sync) and a whole transaction
 * (BEGIN … COMMIT) are never interleaved with another connection's statements. A connection that
 * holds the session and says nothing for `idleHoldMs` is closed, and a connection that goes away
 * while holding it has its transaction rolled back first.
 */
import type net from "node:net";
import type { PGlite } from "@electric-sql/pglite";

/** SSLRequest and CancelRequest: 8-byte messages with these codes instead of a protocol version. */
const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const GSS_REQUEST = 80877104;
/** Frontend Terminate ('X'). */
const TERMINATE = 0x58;
/** Larger than any statement we send (a CSV export's rows come the other way); stops a bad length from buffering without end. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Frontend "Sync" and a simple "Query ROLLBACK", sent for a connection that left mid-transaction. */
const SYNC = Uint8Array.from([0x53, 0, 0, 0, 4]);
const ROLLBACK = queryMessage("ROLLBACK");

function queryMessage(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, "utf8");
  const message = Buffer.alloc(5 + text.length);
  message[0] = 0x51; // 'Q'
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}

/** The transaction status of a response ending with ReadyForQuery ('Z', length 5, status), else undefined. */
export function readyStatus(response: Uint8Array): "I" | "T" | "E" | undefined {
  const n = response.length;
  if (n < 6 || response[n - 6] !== 0x5a || response[n - 5] !== 0 || response[n - 4] !== 0 || response[n - 3] !== 0 || response[n - 2] !== 5) return undefined;
  const status = String.fromCharCode(response[n - 1]!);
  return status === "I" || status === "T" || status === "E" ? status : undefined;
}

/**
 * Splits a byte stream into protocol messages. The first message of a connection has no type
 * byte (a length, then a protocol version or a request code); every later one is a type byte and
 * a length that counts itself.
 */
export class MessageFramer {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
  }

  /** The next complete message, undefined until one is complete; throws on an impossible length. */
  next(): { message: Buffer; initial: boolean } | undefined {
    const headerBytes = this.started ? 5 : 4;
    if (this.buffer.length < headerBytes) return undefined;
    const length = this.started ? 1 + this.buffer.readInt32BE(1) : this.buffer.readInt32BE(0);
    if (length < headerBytes || length > MAX_MESSAGE_BYTES) throw new Error(`impossible message length ${length}`);
    if (this.buffer.length < length) return undefined;
    const message = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    const initial = !this.started;
    return { message, initial };
  }

  /** After the startup message (SSL and cancel requests come before it and keep the untyped form). */
  markStarted(): void {
    this.started = true;
  }
}

export interface RelayOptions {
  db: PGlite;
  /** A holder silent this long is disconnected (its transaction rolled back). */
  idleHoldMs?: number;
  onProblem?: (event: string, detail: Record<string, unknown>) => void;
}

export interface Relay {
  /** Serves one accepted connection until it closes. */
  accept(socket: net.Socket): void;
  /** Closes every connection, waits for the statement running now, and rolls back what was left open. */
  close(): Promise<void>;
  readonly connections: number;
}

interface Client {
  socket: net.Socket;
  framer: MessageFramer;
  queue: Buffer[];
  /** Mid-exchange (a message answered without ReadyForQuery) or inside a transaction. */
  holding: boolean;
  closed: boolean;
  idleTimer?: NodeJS.Timeout;
}

export function createRelay(options: RelayOptions): Relay {
  const { db } = options;
  const idleHoldMs = options.idleHoldMs ?? 15_000;
  const clients = new Set<Client>();
  /** Clients waiting for the session, in order of arrival. */
  const waiting: Client[] = [];
  let holder: Client | undefined;
  let running: Promise<void> = Promise.resolve();
  let pumping = false;

  const problem = (event: string, detail: Record<string, unknown>) => options.onProblem?.(event, detail);

  /**
   * Queues `work` after what runs now. A fault in it (none is expected: PGlite's failures are
   * caught where they happen) is reported and ends the holder's connection, and the queue goes on.
   */
  function then(work: () => Promise<void>): void {
    running = running.then(work).catch((error: unknown) => {
      problem("embedded_relay_error", { message: error instanceof Error ? error.message : String(error) });
      // The holder's connection ends (its transaction rolled back, then the next one's turn).
      if (holder && !holder.closed) drop(holder, "relay_error");
      else {
        holder = undefined;
        pump();
      }
    });
  }

  function drop(client: Client, reason: string): void {
    if (client.closed) return;
    client.closed = true;
    clearTimeout(client.idleTimer);
    clients.delete(client);
    client.queue.length = 0;
    const at = waiting.indexOf(client);
    if (at >= 0) waiting.splice(at, 1);
    client.socket.destroy();
    if (reason !== "closed") problem("embedded_connection_dropped", { reason });
    if (holder === client) {
      // Whatever it left open ends here: a Sync ends an unfinished exchange, then ROLLBACK.
      then(async () => {
        if (holder !== client) return; // the loop running then has ended it already
        if (client.holding) {
          await db.execProtocolRaw(SYNC, { syncToFs: false }).catch(() => undefined);
          await db.execProtocolRaw(ROLLBACK).catch(() => undefined);
        }
        holder = undefined;
        pump();
      });
    }
  }

  /** Runs queued messages: the holder's first, then the next waiting client's. */
  function pump(): void {
    if (pumping) return;
    pumping = true;
    then(async () => {
      try {
        for (;;) {
          if (!holder) {
            const next = waiting.shift();
            if (!next) return;
            holder = next;
          }
          const client = holder;
          const message = client.queue.shift();
          if (!message) {
            if (client.holding) {
              // Inside a transaction with nothing to run yet: wait for its next message.
              clearTimeout(client.idleTimer);
              client.idleTimer = setTimeout(() => drop(client, "idle_in_transaction"), idleHoldMs);
              client.idleTimer.unref();
              return;
            }
            holder = undefined;
            continue;
          }
          clearTimeout(client.idleTimer);
          let response: Uint8Array;
          try {
            response = await db.execProtocolRaw(message);
          } catch (error) {
            // PGlite answers SQL errors in the protocol; a throw here means the backend itself failed.
            problem("embedded_backend_error", { message: error instanceof Error ? error.message : String(error) });
            drop(client, "backend_error");
            holder = undefined;
            continue;
          }
          const status = readyStatus(response);
          client.holding = status === undefined || status !== "I";
          if (!client.closed && response.length > 0) client.socket.write(response);
          if (client.closed) {
            // It went away while its statement ran: end what it left open.
            if (client.holding) {
              await db.execProtocolRaw(SYNC, { syncToFs: false }).catch(() => undefined);
              await db.execProtocolRaw(ROLLBACK).catch(() => undefined);
              client.holding = false;
            }
            holder = undefined;
          }
        }
      } finally {
        pumping = false;
      }
    });
  }

  function receive(client: Client, chunk: Buffer): void {
    client.framer.push(chunk);
    for (;;) {
      let framed;
      try {
        framed = client.framer.next();
      } catch (error) {
        drop(client, (error as Error).message);
        return;
      }
      if (!framed) break;
      const { message, initial } = framed;
      if (initial && message.length === 8) {
        const code = message.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSS_REQUEST) {
          client.socket.write("N"); // no TLS on a local socket; the client goes on in the clear
          continue;
        }
        if (code === CANCEL_REQUEST) {
          // Statements run to their end in PGlite; a cancel cannot reach them.
          drop(client, "closed");
          return;
        }
      }
      if (initial) client.framer.markStarted();
      else if (message[0] === TERMINATE) {
        // The client says goodbye: what it left open is rolled back, as when it just goes.
        drop(client, "closed");
        return;
      }
      client.queue.push(Buffer.from(message));
      if (holder !== client && !waiting.includes(client)) waiting.push(client);
    }
    pump();
  }

  return {
    accept(socket) {
      const client: Client = { socket, framer: new MessageFramer(), queue: [], holding: false, closed: false };
      clients.add(client);
      socket.on("data", (chunk: Buffer) => receive(client, chunk));
      socket.on("error", () => drop(client, "closed"));
      socket.on("close", () => drop(client, "closed"));
    },
    async close() {
      for (const client of [...clients]) drop(client, "closed");
      // Twice: a drop queues its rollback behind the statement running now.
      await running;
      await running;
    },
    get connections() {
      return clients.size;
    },
  };
}
