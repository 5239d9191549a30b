//! A run's connections once set up: their sender and reader tasks, the processes measured while
//! they run (one server, or every node of a cluster and its Redis), and the report at the end.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use futures::stream::{SplitSink, SplitStream};
use futures::StreamExt;
use protocol::ClientMsg;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use super::{read_loop, write_loop, Event, Group, RunReport, Tally};
use crate::hist::Latency;
use crate::procfs;
use crate::wsclient::{self, Ws};

/// The processes whose CPU time a run reads, when their pids are known.
#[derive(Clone, Debug, Default)]
pub struct Procs {
    /// The server, or every node of a cluster (their CPU is added up). Empty: not measured.
    pub servers: Vec<u32>,
    /// The cluster's `redis-server`.
    pub redis: Option<u32>,
}

impl Procs {
    /// One server, measured when its pid is known.
    pub fn one(pid: Option<u32>) -> Procs {
        Procs {
            servers: pid.into_iter().collect(),
            redis: None,
        }
    }

    /// The servers' CPU time added up (`None` when none is known), and Redis's.
    fn cpu(&self) -> Result<(Option<Duration>, Option<Duration>)> {
        let mut servers = None;
        for &pid in &self.servers {
            *servers.get_or_insert(Duration::ZERO) += procfs::cpu_time(pid)?;
        }
        let redis = self.redis.map(procfs::cpu_time).transpose()?;
        Ok((servers, redis))
    }
}

/// CPU time between two readings.
fn spent(before: Option<Duration>, after: Option<Duration>) -> Option<Duration> {
    Some(after?.saturating_sub(before?))
}

type Writer = JoinHandle<(SplitSink<Ws, Message>, Latency)>;
type Reader = JoinHandle<(SplitStream<Ws>, Tally)>;

/// The tasks of a run, started and waiting for `t0`.
#[derive(Default)]
pub(super) struct Launched {
    pub(super) groups: Vec<Arc<Group>>,
    writers: Vec<Writer>,
    readers: Vec<Reader>,
    /// The group of each reader.
    reader_groups: Vec<usize>,
    /// Whether each reader's connection is on another node than its room's owner.
    reader_relayed: Vec<bool>,
}

impl Launched {
    /// Starts member `j` of `group` on `ws`: `make(k)` is its message `k`, `parse` reads its
    /// stream.
    pub(super) fn start(
        &mut self,
        ws: Ws,
        group: &Arc<Group>,
        j: usize,
        deadline: Instant,
        make: impl FnMut(u64) -> String + Send + 'static,
        parse: impl FnMut(&str) -> Event + Send + 'static,
    ) {
        let (sink, stream) = ws.split();
        let gi = self
            .groups
            .iter()
            .position(|g| Arc::ptr_eq(g, group))
            .unwrap_or(0);
        self.reader_groups.push(gi);
        self.reader_relayed.push(false);
        self.writers
            .push(tokio::spawn(write_loop(sink, Arc::clone(group), j, make)));
        self.readers.push(tokio::spawn(read_loop(
            stream,
            Arc::clone(group),
            j,
            deadline,
            parse,
        )));
    }

    /// Marks the member started last as connected to another node than its room's owner.
    pub(super) fn relayed_last(&mut self) {
        if let Some(r) = self.reader_relayed.last_mut() {
            *r = true;
        }
    }

    /// Waits for `t0`, measures `procs` until every reader is done, then closes every
    /// connection (after a `leave` when `leave` is set).
    pub(super) async fn measure(
        self,
        t0: Instant,
        procs: &Procs,
        leave: bool,
    ) -> Result<RunReport> {
        let schedule = self
            .groups
            .first()
            .map(|g| g.schedule)
            .context("a run has a group")?;
        tokio::time::sleep_until(t0).await;
        let (servers_before, redis_before) = procs.cpu()?;
        let self_before = procfs::cpu_time(std::process::id()).ok();
        let n = self.readers.len();
        let mut tally = Tally::default();
        let mut streams = Vec::with_capacity(n);
        let mut round_trip_by_group: Vec<Latency> =
            self.groups.iter().map(|_| Latency::new()).collect();
        let mut round_trip_relayed = Latency::new();
        let tags = self.reader_groups.into_iter().zip(self.reader_relayed);
        for (reader, (gi, relayed)) in self.readers.into_iter().zip(tags) {
            let (stream, t) = reader.await.context("reader task")?;
            if let Some(by) = round_trip_by_group.get_mut(gi) {
                by.merge(&t.round_trip);
            }
            if relayed {
                round_trip_relayed.merge(&t.round_trip);
            }
            tally.merge(&t);
            streams.push(stream);
        }
        let window = t0.elapsed();
        let (servers_after, redis_after) = procs.cpu()?;
        let self_cpu = spent(self_before, procfs::cpu_time(std::process::id()).ok());
        let mut fanout_all = Latency::new();
        for g in &self.groups {
            fanout_all.merge(&g.fanout_all());
        }
        let mut closing = Vec::with_capacity(n);
        let mut send_lag = Latency::new();
        for (writer, stream) in self.writers.into_iter().zip(streams) {
            let (sink, lag) = writer.await.context("writer task")?;
            send_lag.merge(&lag);
            if let Ok(mut ws) = sink.reunite(stream) {
                closing.push(async move {
                    if leave {
                        let _ = wsclient::send(&mut ws, &ClientMsg::Leave).await;
                    }
                    wsclient::close(ws, Duration::from_secs(2)).await;
                });
            }
        }
        futures::future::join_all(closing).await;
        Ok(RunReport {
            tally,
            fanout_all,
            connections: n,
            send_window: schedule.end - schedule.t0,
            window,
            server_cpu: spent(servers_before, servers_after),
            nodes: 1,
            redis_cpu: spent(redis_before, redis_after),
            self_cpu,
            send_lag,
            round_trip_by_group,
            round_trip_relayed,
            crowd: None,
        })
    }
}
