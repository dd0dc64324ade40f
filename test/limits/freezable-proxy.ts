import net from 'node:net';

/** A TCP proxy to `target` on 127.0.0.1 that can go silent, like a Redis behind a network partition. */
export interface FreezableProxy {
  port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezableProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<FreezableProxy> {
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const held: Array<() => void> = [];
  // While frozen, bytes are held (not lost, as TCP would retransmit them): connections stay open
  // and nothing answers until thawed.
  const relay = (to: net.Socket) => (chunk: Buffer) => {
    if (frozen) held.push(() => to.write(chunk));
    else to.write(chunk);
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', relay(upstream));
    upstream.on('data', relay(client));
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
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
