import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { z } from 'zod';
import { startBaton, type RunOptions } from './cli.js';

/** `baton serve` as a child process, and plain HTTP requests to it. */
export const ServingEnvelope = z.strictObject({
  v: z.literal(1),
  type: z.literal('serving'),
  generated_at: z.string(),
  url: z.string(),
  host: z.string(),
  port: z.number().int(),
  exposed: z.boolean(),
  store: z.string(),
  head_seq: z.number().int(),
});
export type ServingEnvelope = z.infer<typeof ServingEnvelope>;

export interface Served {
  child: ChildProcessWithoutNullStreams;
  serving: ServingEnvelope;
  /** http://host:port (no token). */
  base: string;
  token: string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Start `baton --dir DIR serve --port 0 ARGS…` and wait for the `serving` envelope. */
export async function startServe(dir: string, args: readonly string[] = [], options: RunOptions = {}): Promise<Served> {
  const child = startBaton(['--dir', dir, '--json', 'serve', '--port', '0', ...args], options);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const serving = await new Promise<ServingEnvelope>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baton serve did not start: ${stdout}${stderr}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line !== undefined) {
        clearTimeout(timer);
        try {
          resolve(ServingEnvelope.parse(JSON.parse(line)));
        } catch (error) {
          reject(new Error(`unexpected output: ${line} (${String(error)}) ${stderr}`));
        }
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`baton serve exited with ${code}: ${stdout}${stderr}`));
    });
  });
  const url = new URL(serving.url);
  return {
    child,
    serving,
    base: `${url.protocol}//${url.host}`,
    token: url.searchParams.get('token')!,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with node:http (the path is sent as given). */
export function httpRequest(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const headers = { ...(options.headers ?? {}), ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}) };
    const req = request({ host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A request line written byte for byte on a socket (no client normalises the target): the status code. */
export function rawRequest(base: string, target: string, token: string): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
  });
}
