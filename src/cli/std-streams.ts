/**
 * Node creates `process.stdout` and `process.stderr` on first use, and for a pipe (how agents and
 * wrappers run Baton) that costs a short command several milliseconds: a net.Socket, with the net
 * and stream modules. Baton prints through stdio.ts's sinks, which write to the descriptor and never
 * need them. So the bin must not touch them just to attach its handlers: `whenCreated` runs a
 * callback the first time something (commander's help, a sink's fallback, a library) creates one.
 */
export type StandardStream = 'stdout' | 'stderr';

export function whenCreated(name: StandardStream, created: (stream: NodeJS.WriteStream) => void): void {
  const descriptor = Object.getOwnPropertyDescriptor(process, name);
  const get = descriptor?.get;
  if (get === undefined || descriptor?.configurable !== true) {
    // Not Node's lazy getter (an embedder replaced it): the stream is there already.
    created(process[name]);
    return;
  }
  let seen = false;
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: descriptor!.enumerable ?? true,
    get(): NodeJS.WriteStream {
      const stream = get.call(process) as NodeJS.WriteStream;
      if (!seen) {
        seen = true;
        created(stream);
      }
      return stream;
    },
  });
}
