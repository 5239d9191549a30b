//! A test host of the test's own: a Linux network namespace joined to this one by two veth
//! links, one that carries its Redis traffic and one its clients', so that a test can cut the
//! first (a real partition: packets are lost, sockets stay open) and keep the second.
//! Needs root and iproute2 (`ip`), as CI has; made with `ip netns add`, gone when dropped.

use std::process::Command;

/// Run `ip args…`, panicking with its output when it fails.
fn ip(args: &[&str]) {
    let out = Command::new("ip")
        .args(args)
        .output()
        .expect("run `ip` (iproute2)");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A network namespace with its two links to this one.
pub struct Host {
    name: String,
    /// The host-side ends of its two links (deleting one deletes its pair).
    outside: [String; 2],
    /// The namespace's end of the Redis link.
    redis_if: String,
    /// This side's address on the Redis link (where the host reaches Redis).
    pub redis_gw: String,
    /// The namespace's address on the clients' link (where clients reach the host).
    pub addr: String,
}

impl Host {
    /// A new host; `n` (0–63) keeps its links' names and subnets apart from other hosts'.
    pub fn new(n: u8) -> Host {
        let tag = format!("{}{n}", std::process::id() % 10_000);
        let name = format!("srp{tag}");
        let _ = Command::new("ip").args(["netns", "del", &name]).output();
        ip(&["netns", "add", &name]);
        // A /30 of its own per run and host: 10.231.P.4N (Redis link), 10.232.P.4N (clients).
        let (p, q) = (std::process::id() % 250, u32::from(n % 64) * 4);
        let host = Host {
            outside: [format!("srr{tag}h"), format!("src{tag}h")],
            redis_if: format!("srr{tag}n"),
            redis_gw: format!("10.231.{p}.{}", q + 1),
            addr: format!("10.232.{p}.{}", q + 2),
            name,
        };
        host.link(&host.outside[0], &host.redis_if, (231, p, q));
        host.link(&host.outside[1], &format!("src{tag}n"), (232, p, q));
        host.exec(&["ip", "link", "set", "lo", "up"]);
        host
    }

    /// A veth pair `outside`–`inside` on the /30 `10.B.P.Q` (.Q+1 here, .Q+2 inside).
    fn link(&self, outside: &str, inside: &str, (b, p, q): (u32, u32, u32)) {
        let here = format!("10.{b}.{p}.{}/30", q + 1);
        let there = format!("10.{b}.{p}.{}/30", q + 2);
        ip(&[
            "link", "add", outside, "type", "veth", "peer", "name", inside,
        ]);
        ip(&["link", "set", inside, "netns", &self.name]);
        ip(&["addr", "add", &here, "dev", outside]);
        ip(&["link", "set", outside, "up"]);
        self.exec(&["ip", "addr", "add", &there, "dev", inside]);
        self.exec(&["ip", "link", "set", inside, "up"]);
    }

    /// Run a command in the namespace.
    fn exec(&self, cmd: &[&str]) {
        let mut args = vec!["netns", "exec", &self.name];
        args.extend_from_slice(cmd);
        ip(&args);
    }

    /// The command prefix that runs a program in the namespace.
    pub fn wrap(&self) -> [&str; 4] {
        ["ip", "netns", "exec", &self.name]
    }

    /// Cut the host off from Redis (its clients' link stays up), or join it again.
    pub fn redis_link(&self, up: bool) {
        let state = if up { "up" } else { "down" };
        self.exec(&["ip", "link", "set", &self.redis_if, state]);
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        for link in &self.outside {
            let _ = Command::new("ip").args(["link", "del", link]).output();
        }
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .output();
    }
}
