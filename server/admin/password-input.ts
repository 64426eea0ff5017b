/**
 * Reading a new password for `npm run admin`: typed at a terminal without echo (asked twice),
 * or piped on standard input (its first line), so scripts and tests can set one without it
 * ever appearing in the command line, the shell history or `ps`.
 */
import type { Readable, Writable } from "node:stream";

export type PasswordInput = Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

/** The first line of a piped stdin (without its line end). */
async function firstLine(input: Readable): Promise<string> {
  let text = "";
  for await (const chunk of input) {
    text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
    const end = text.search(/\r?\n/);
    if (end >= 0) return text.slice(0, end);
  }
  return text;
}

/** One line typed at the terminal, echoing nothing; Ctrl-C aborts. */
function typed(input: PasswordInput, prompt: Writable, question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    prompt.write(question);
    input.setRawMode?.(true);
    input.resume();
    let value = "";
    const finish = (error?: Error) => {
      input.setRawMode?.(false);
      input.pause();
      input.off("data", onData);
      prompt.write("\n");
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of typeof chunk === "string" ? chunk : chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return finish();
        if (char === "\u0003") return finish(new Error("Cancelled."));
        if (char === "\u007f" || char === "\b") value = value.slice(0, -1);
        else value += char;
      }
    };
    input.on("data", onData);
  });
}

export async function readNewPassword(input: PasswordInput, prompt: Writable): Promise<string> {
  if (!input.isTTY) return firstLine(input);
  const first = await typed(input, prompt, "Password (at least 12 characters, not shown): ");
  const again = await typed(input, prompt, "The same password again: ");
  if (first !== again) throw new Error("The two passwords differ: nothing was changed.");
  return first;
}
