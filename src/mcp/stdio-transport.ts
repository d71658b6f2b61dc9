import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorReply, InputVerdictKind, JsonRpcErrorCode, judgeLine, type JsonRpcErrorReply } from './json-rpc-input.js';

/** The largest message `baton mcp` reads, in bytes without its newline: the SDK's own stdio limit, so no client it served is refused. */
export const MCP_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * `baton mcp`'s stdio transport: newline-delimited JSON-RPC on stdin and stdout, like the SDK's
 * StdioServerTransport, but it answers what is not a valid message with the JSON-RPC error response
 * (json-rpc-input.ts) and keeps serving. The SDK's transport drops such a line without a word and
 * closes itself when its buffer passes 10 MiB; here a message over the limit is answered, its bytes
 * are discarded up to its newline, and the next message is read as usual.
 */
export class McpStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];
  /** Why reading stopped, when stdin failed rather than ended. */
  readFailure: Error | undefined;

  /** The bytes of the message being read, not yet ended by a newline. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a message over the limit, already answered: skip to its newline. */
  private discarding = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly maxMessageBytes: number = MCP_MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('McpStdioTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.on('end', this.onEnd);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.pending = [];
    this.pendingBytes = 0;
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (!this.closed) {
      const newline = bytes.indexOf(NEWLINE, start);
      const piece = bytes.subarray(start, newline === -1 ? bytes.length : newline);
      if (this.discarding) {
        if (newline !== -1) this.discarding = false;
      } else if (this.pendingBytes + piece.length > this.maxMessageBytes) {
        this.answerOversized();
        // Answered once, as soon as it is known; the rest of it, up to its newline, is skipped.
        this.discarding = newline === -1;
      } else if (newline === -1) {
        if (piece.length > 0) this.pending.push(piece);
        this.pendingBytes += piece.length;
      } else {
        const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
        this.pending = [];
        this.pendingBytes = 0;
        this.handleLine(line);
      }
      if (newline === -1) return;
      start = newline + 1;
    }
  };

  private handleLine(line: Buffer): void {
    const verdict = judgeLine(line);
    switch (verdict.kind) {
      case InputVerdictKind.MESSAGE:
        this.onmessage?.(verdict.message);
        return;
      case InputVerdictKind.ANSWER:
        void this.write(verdict.reply);
        return;
      case InputVerdictKind.IGNORE:
        if (verdict.reason !== undefined) this.onerror?.(new Error(`ignored ${verdict.reason}`));
        return;
    }
  }

  private answerOversized(): void {
    this.pending = [];
    this.pendingBytes = 0;
    const limit = `${this.maxMessageBytes} bytes (${this.maxMessageBytes / (1024 * 1024)} MiB)`;
    void this.write(errorReply(JsonRpcErrorCode.INVALID_REQUEST, `Invalid Request: the message is larger than the limit of ${limit}; it was discarded`));
  }

  private write(message: JSONRPCMessage | JsonRpcErrorReply): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  private readonly onInputError = (error: Error): void => {
    this.readFailure = error;
    this.onerror?.(error);
    void this.close();
  };

  private readonly onEnd = (): void => {
    void this.close();
  };
}
