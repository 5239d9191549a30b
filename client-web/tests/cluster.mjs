// @ts-check
/**
 * What the failover test stands on: a redis-server of its own, cluster nodes (the real server
 * binary, with the cluster suite's flags: server/tests/e2e/cluster/engines.rs `node_args`) that
 * share one results file as a cluster shares its PostgreSQL, a TCP balancer in the test process,
 * the terminal client in tmux (a real pty, read as its screen) and the bot with its log. Every
 * wait is bounded.
 */

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { binary, startServer, TIMEOUT } from './support.mjs';

/** @typedef {import('./support.mjs').Server} Server */

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Poll `probe` until it returns something other than null, undefined or false; fail with `what`
 * and `detail()` after `timeout`.
 * @template T
 * @param {string} what
 * @param {() => T | null | undefined | false | Promise<T | null | undefined | false>} probe
 * @param {{timeout?: number, every?: number, detail?: () => string}} [opts]
 * @returns {Promise<T>}
 */
export async function until(what, probe, opts = {}) {
  const deadline = Date.now() + (opts.timeout ?? TIMEOUT);
  for (;;) {
    const v = await probe();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${opts.detail ? `:\n${opts.detail()}` : ''}`);
    await sleep(opts.every ?? 50);
  }
}

/** A port nothing listens on right now. */
async function freePort() {
  const probe = net.createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', () => r(undefined)));
  const port = /** @type {net.AddressInfo} */ (probe.address()).port;
  await new Promise((r) => probe.close(r));
  return port;
}

/**
 * What `INFO server` says on the Redis at `port`, or '' if it does not answer.
 * @param {number} port
 * @returns {Promise<string>}
 */
function redisInfo(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    const done = () => {
      s.destroy();
      resolve(got);
    };
    s.setTimeout(1000, done);
    s.on('error', done);
    s.on('connect', () => s.write('INFO server\r\n'));
    s.on('data', (d) => {
      got += d;
      if (got.includes('\r\n\r\n') || /process_id:\d+\r\n/.test(got)) done();
    });
  });
}

/**
 * A redis-server of the test's own on a free port, keeping nothing on disk. A port taken by
 * another test between the probe and the bind would make this one exit: only a server that
 * says it is ours (its process id) is kept.
 * @returns {Promise<{url: string, stop: () => void}>}
 */
export async function startRedis() {
  for (let i = 0; i < 5; i++) {
    const port = await freePort();
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--protected-mode', 'no', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const exited = new Promise((r) => proc.once('exit', r));
    const ours = await until('redis-server to listen', async () => {
      if (proc.exitCode !== null) return 'exited';
      const info = await redisInfo(port);
      return new RegExp(`process_id:${proc.pid}\\r\\n`).test(info) ? 'ours' : null;
    });
    if (ours === 'ours') {
      return {
        url: `redis://127.0.0.1:${port}`,
        stop: () => {
          proc.kill('SIGKILL');
        },
      };
    }
    await exited;
  }
  throw new Error('redis-server did not start on a free port in five tries (is it installed?)');
}

/** The cluster suite's node flags (engines.rs `node_args`); the countdown is startServer's. */
const NODE_ARGS = ['--fair-play', 'false', '--puzzle-stock', '2', '--rate-limit', '10000', '--rate-burst', '10000', '--lag-cap-ms', '0'];

/**
 * `n` nodes on `redis`, ids n0, n1, …, sharing the results file `db`. The first is started alone
 * (it makes the file's tables), the others beside each other.
 * @param {{url: string}} redis
 * @param {number} n
 * @param {string} db
 * @returns {Promise<Server[]>}
 */
export async function startNodes(redis, n, db) {
  /** @param {number} i */
  const node = (i) => startServer(['--cluster', redis.url, '--node-id', `n${i}`, ...NODE_ARGS], { countdownMs: 100, db });
  const first = await node(0);
  const rest = await Promise.all(Array.from({ length: n - 1 }, (_, i) => node(i + 1)));
  return [first, ...rest];
}

/**
 * The first JSON log line of `node` whose message is `message` and whose fields or spans name
 * room `code`.
 * @param {Server} node
 * @param {string} message
 * @param {string} code
 */
export function logLine(node, message, code) {
  return node.log.find((line) => line.includes(`"message":"${message}"`) && line.includes(`"room":"${code}"`));
}

/**
 * A TCP balancer before `nodes`: each new connection goes to the next node in turn, or to the
 * one `steer` names, and on to the following ones while a node refuses (a dead node). When
 * either side closes, so does the other: a client of a node that dies loses its socket.
 * @param {Server[]} nodes
 */
export async function balancer(nodes) {
  const targets = nodes.map((n) => {
    const [host, port] = n.addr.split(':');
    return { host, port: Number(port) };
  });
  let turn = 0;
  /** @type {number | null} */
  let steered = null;
  /** @type {Set<net.Socket>} */
  const open = new Set();
  /** @param {net.Socket} s */
  const track = (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => {});
  };
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    const first = steered ?? turn++ % targets.length;
    /** @param {number} k */
    const attempt = (k) => {
      if (k === targets.length || client.destroyed) return void client.destroy();
      const up = net.connect(targets[(first + k) % targets.length]);
      const refused = () => attempt(k + 1);
      up.once('error', refused);
      up.once('connect', () => {
        up.off('error', refused);
        track(up);
        up.on('close', () => client.destroy());
        client.on('close', () => up.destroy());
        client.pipe(up);
        up.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const port = /** @type {net.AddressInfo} */ (server.address()).port;
  return {
    url: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}/ws`,
    /** New connections go to node `i` first (null: in turn). @param {number | null} i */
    steer(i) {
      steered = i;
    },
    stop() {
      server.close();
      for (const s of open) s.destroy();
    },
  };
}

/** @param {string} s */
const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * The terminal client (`sudoku-race ARGS`) in a tmux session of its own, 100×30, with a fresh
 * home (no kept identity). `screen()` is what the pane shows; `keys(…)` types (tmux key names:
 * `Up`, `Down`, `Left`, `Right`, digits, letters); `status()` is its exit code once it has exited.
 * @param {string[]} args
 */
export function terminal(args) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sudoku-race-term-'));
  const home = path.join(dir, 'home');
  const sock = path.join(dir, 'tmux.sock');
  /** @param {string[]} a */
  const tmux = (...a) => execFileSync('tmux', ['-S', sock, '-f', '/dev/null', ...a], { encoding: 'utf8', timeout: TIMEOUT, stdio: ['ignore', 'pipe', 'pipe'] });
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    SUDOKU_RACE_LOG: path.join(dir, 'client.log'),
    RUST_LOG: 'client=debug',
  };
  const vars = Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`);
  const cmd = `env ${vars.join(' ')} ${[binary('sudoku-race'), ...args].map(quote).join(' ')}; echo $? > ${quote(path.join(dir, 'status'))}`;
  tmux('new-session', '-d', '-s', 'term', '-x', '100', '-y', '30', cmd);
  let last = '';
  return {
    screen() {
      try {
        last = tmux('capture-pane', '-p', '-t', 'term');
      } catch {
        // The client has exited and its session with it: its last screen stays.
      }
      return last;
    },
    /** @param {string[]} keys */
    keys(...keys) {
      if (keys.length) tmux('send-keys', '-t', 'term', ...keys);
    },
    status() {
      try {
        return Number(readFileSync(path.join(dir, 'status'), 'utf8'));
      } catch {
        return null;
      }
    },
    log() {
      try {
        return readFileSync(env.SUDOKU_RACE_LOG, 'utf8');
      } catch {
        return '';
      }
    },
    stop() {
      try {
        tmux('kill-server');
      } catch {
        // Gone already.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The board on a terminal race screen (the 80×24 layout's, whose cells are 3 columns wide) as an
 * 81-character grid, `.` for empty; null when the screen shows no board.
 * @param {string} screen
 */
export function termBoard(screen) {
  const rows = screen.split('\n').filter((l) => l.startsWith('┃'));
  if (rows.length !== 9) return null;
  return rows.map((l) => Array.from({ length: 9 }, (_, c) => l[2 + Math.floor(c / 3) * 10 + (c % 3) * 3]).map((ch) => (/[1-9]/.test(ch) ? ch : '.')).join('')).join('');
}

/**
 * `name`'s count of placed cells in the terminal's progress panel, or null.
 * @param {string} screen
 * @param {string} name
 */
export function termProgress(screen, name) {
  const m = new RegExp(`[●○] ${name} [^\\n]*\\n[^\\n]*? (\\d+)/\\d+`).exec(screen);
  return m ? Number(m[1]) : null;
}

/**
 * The keys that move the terminal's cursor from cell `from` to cell `to` and place `digit`.
 * @param {number} from
 * @param {number} to
 * @param {string} digit
 */
export function keysTo(from, to, digit) {
  const dr = Math.floor(to / 9) - Math.floor(from / 9);
  const dc = (to % 9) - (from % 9);
  return [
    ...Array(Math.abs(dr)).fill(dr > 0 ? 'Down' : 'Up'),
    ...Array(Math.abs(dc)).fill(dc > 0 ? 'Right' : 'Left'),
    digit,
  ];
}

/**
 * The terminal client's bot in room `code` through `ws`, logging what it receives; `acked()`
 * is every placement the server has accepted from it so far (read from that log).
 * @param {string} ws
 * @param {string} code
 * @param {string[]} args
 */
export function startBot(ws, code, args) {
  const proc = spawn(binary('sudoku-race'), ['bot', code, '--server', ws, '--races', '1', ...args], {
    env: { ...process.env, RUST_LOG: 'client::net::serve=debug', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (err += d));
  /** @type {number | null} */
  let exit = null;
  proc.on('exit', (code, signal) => (exit = code ?? (signal ? 128 : 1)));
  return {
    proc,
    /** @returns {{cell: number, digit: string}[]} */
    acked() {
      // eslint-disable-next-line no-control-regex
      const plain = err.replace(/\x1b\[[0-9;]*m/g, '');
      return [...plain.matchAll(/recv msg=Placement \{[^\n]*? cell: Cell\((\d+)\), digit: Digit\((\d)\), accepted: true/g)].map((m) => ({ cell: Number(m[1]), digit: m[2] }));
    },
    /** Its stdout once it has exited 0 within `timeout`. @param {number} timeout */
    async done(timeout) {
      const code = await until('the bot to exit', () => exit, { timeout, every: 100, detail: () => err.slice(-3000) });
      if (code !== 0) throw new Error(`bot exited ${code}: ${out}\n${err.slice(-3000)}`);
      return out;
    },
    stop() {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    },
  };
}
