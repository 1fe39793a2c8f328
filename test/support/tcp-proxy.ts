// A TCP proxy that a test can take down and bring back: the process under test sees its database
// (or Redis) vanish, connections reset and new ones refused, as in a restart or a network cut,
// without disturbing the shared server that other tests use. It can also stall: hold the bytes of
// every connection, open or new, without closing anything, as a network that stops delivering does.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  /** Ends every proxied connection and refuses new ones. */
  pause(): Promise<void>;
  /** Accepts connections again, on the same port. */
  resume(): Promise<void>;
  /**
   * Holds every byte from now on, both ways (or only the server's answers: `repliesOnly`, so that
   * what the client sends still reaches the server and takes effect there, unanswered). Connections
   * stay open and new ones are accepted; nothing is lost: flow() delivers what was held.
   */
  stall(options?: { repliesOnly?: boolean }): void;
  /** Delivers what a stall held and lets bytes through again. */
  flow(): void;
  close(): Promise<void>;
}

type Hold = 'none' | 'replies' | 'both';

interface Link {
  client: net.Socket;
  upstream: net.Socket;
  /** Bytes held on their way to the server and to the client. */
  toServer: Buffer[];
  toClient: Buffer[];
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const links = new Set<Link>();
  let server: net.Server | undefined;
  let port = 0;
  let hold: Hold = 'none';

  const forward = (link: Link) => {
    if (hold !== 'both') for (const chunk of link.toServer.splice(0)) link.upstream.write(chunk);
    if (hold === 'none') for (const chunk of link.toClient.splice(0)) link.client.write(chunk);
  };

  const listen = () => new Promise<void>((resolve, reject) => {
    const s = net.createServer((client) => {
      const link: Link = { client, upstream: net.connect(target), toServer: [], toClient: [] };
      links.add(link);
      const end = () => {
        link.client.destroy();
        link.upstream.destroy();
        links.delete(link);
      };
      client.on('error', end).on('close', end);
      link.upstream.on('error', end).on('close', end);
      client.on('data', (chunk: Buffer) => {
        link.toServer.push(chunk);
        forward(link);
      });
      link.upstream.on('data', (chunk: Buffer) => {
        link.toClient.push(chunk);
        forward(link);
      });
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
    for (const link of links) {
      link.client.destroy();
      link.upstream.destroy();
    }
    links.clear();
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
    stall(options = {}) {
      hold = options.repliesOnly ? 'replies' : 'both';
    },
    flow() {
      hold = 'none';
      for (const link of links) forward(link);
    },
    close: pause,
  };
}
