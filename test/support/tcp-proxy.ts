// A TCP proxy that a test can take down and bring back: the process under test sees its database
// (or Redis) vanish, connections reset and new ones refused, as in a restart or a network cut,
// without disturbing the shared server that other tests use.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  /** Ends every proxied connection and refuses new ones. */
  pause(): Promise<void>;
  /** Accepts connections again, on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;

  const listen = () => new Promise<void>((resolve, reject) => {
    const s = net.createServer((client) => {
      const upstream = net.connect(target);
      sockets.add(client);
      sockets.add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      port = (s.address() as net.AddressInfo).port;
      server = s;
      resolve();
    });
  });

  const pause = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    via(url: string) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    pause,
    resume: () => (server ? Promise.resolve() : listen()),
    close: pause,
  };
}
