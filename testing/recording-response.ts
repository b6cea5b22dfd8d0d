/**
 * For the forms' canonical-to-stream tests: a stand-in for Node's ServerResponse that records what
 * is written, and a parser for server-sent events, so a stream can be compared with a vendor's
 * recorded one without a socket.
 */
import type { ServerResponse } from 'node:http';

export class RecordingResponse {
  status = 0;
  headers: Record<string, unknown> = {};
  body = '';
  destroyed = false;
  writableEnded = false;
  /** Called after each write, so a test can react to what the stream has said so far. */
  onWrite: (text: string) => void = () => undefined;

  writeHead(status: number, headers: Record<string, unknown>) {
    this.status = status;
    this.headers = { ...this.headers, ...headers };
    return this;
  }
  setHeader(name: string, value: unknown) {
    this.headers[name] = value;
    return this;
  }
  /** Written at once here: what leaves together on a socket is the same text. */
  cork() {}
  uncork() {}
  write(text: string) {
    this.body += text;
    this.onWrite(text);
    return true;
  }
  end() {
    this.writableEnded = true;
    return this;
  }
  asServerResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }
}

export type ServerSentEvent = { event: string | null; data: string };

/** Splits an event stream on blank lines (`\n\n` or `\r\n\r\n`), as the vendors' clients do. */
export function parseServerSentEvents(text: string): ServerSentEvent[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | null = null;
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trim());
      }
      return { event, data: data.join('\n') };
    });
}
