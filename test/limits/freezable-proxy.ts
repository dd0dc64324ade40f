import net from 'node:net';

/**
 * A TCP proxy to `target` on 127.0.0.1 that can go silent, like a Redis behind a network
 * partition, or go down, like a server restarting (every connection cut, new ones closed at once).
 */
export interface FreezableProxy {
  port: number;
  freeze(): void;
  thaw(): void;
  /** Ends every connection and closes new ones as they come, until `restore()`. */
  cut(): void;
  restore(): void;
  /** Drops what the server sends (a reply lost on its way back) until `unmute()`; what the client sends still arrives. */
  mute(): void;
  unmute(): void;
  close(): Promise<void>;
}

export async function startFreezableProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<FreezableProxy> {
  let frozen = false;
  let down = false;
  let muted = false;
  const sockets = new Set<net.Socket>();
  const held: Array<() => void> = [];
  // While frozen, bytes are held (not lost, as TCP would retransmit them): connections stay open
  // and nothing answers until thawed.
  const relay = (to: net.Socket) => (chunk: Buffer) => {
    if (frozen) held.push(() => to.write(chunk));
    else to.write(chunk);
  };
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', relay(upstream));
    const reply = relay(client);
    upstream.on('data', (chunk: Buffer) => {
      if (!muted) reply(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    freeze: () => void (frozen = true),
    thaw: () => {
      frozen = false;
      for (const flush of held.splice(0)) flush();
    },
    cut: () => {
      down = true;
      held.length = 0;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => void (down = false),
    mute: () => void (muted = true),
    unmute: () => void (muted = false),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
