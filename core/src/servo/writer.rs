//! Where a patched Servo's samples go: a channel to one writer thread, which serializes them
//! and appends them to the JSONL file. The network thread that took a sample only numbers it
//! and sends it; it never waits on the file.
//!
//! Invariants: samples are numbered (`seq`) and stamped (`since_start_ns`) on the thread that
//! took them, in one atomic step per sample, so `seq` order is the order they were taken;
//! the writer writes them in the order it receives them and flushes whenever its queue is
//! empty; a failure to open or write is said once in Servo's log, and Servo goes on.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use certbench_schema::Sample;

enum Message {
    Sample(Box<Sample>),
    Flush(Sender<()>),
}

/// The process's sample stream.
pub(super) struct Writer {
    to_thread: Sender<Message>,
    started: Instant,
    seq: AtomicU64,
}

impl Writer {
    /// Starts the writer thread appending to `path`.
    pub(super) fn start(path: PathBuf) -> Writer {
        let (tx, rx) = channel();
        let spawned = std::thread::Builder::new()
            .name("certbench-samples".into())
            .spawn(move || write_all(&path, rx));
        if let Err(e) = spawned {
            say(&format!(
                "certbench: no sample writer thread ({e}); no samples"
            ));
        }
        Writer {
            to_thread: tx,
            started: Instant::now(),
            seq: AtomicU64::new(0),
        }
    }

    /// The next sequence number and the nanoseconds since the writer started (certbench's
    /// first call in the process).
    pub(super) fn stamp(&self) -> (u64, u64) {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        (seq, self.started.elapsed().as_nanos() as u64)
    }

    /// Queues `sample` (never blocks on the file).
    pub(super) fn send(&self, sample: Sample) {
        // A closed channel means the thread is gone: it said why.
        let _ = self.to_thread.send(Message::Sample(Box::new(sample)));
    }

    /// Waits until every sample queued before this call is in the file.
    pub(super) fn flush(&self) {
        let (ack, done) = channel();
        if self.to_thread.send(Message::Flush(ack)).is_ok() {
            let _ = done.recv();
        }
    }
}

/// Servo's log (a library prints nothing itself).
fn say(message: &str) {
    log::error!("{message}");
}

fn write_all(path: &Path, rx: Receiver<Message>) {
    let mut out = match File::options().create(true).append(true).open(path) {
        Ok(f) => Some(BufWriter::new(f)),
        Err(e) => {
            say(&format!(
                "certbench: {}: {e}; no samples will be written",
                path.display()
            ));
            None
        }
    };
    let mut failed = false;
    let mut write = |out: &mut Option<BufWriter<File>>, message: Message| match message {
        Message::Sample(sample) => {
            if let Some(w) = out.as_mut() {
                let line = serde_json::to_string(&sample).expect("samples serialize");
                if let Err(e) = writeln!(w, "{line}")
                    && !std::mem::replace(&mut failed, true)
                {
                    say(&format!("certbench: writing {}: {e}", path.display()));
                }
            }
            None
        }
        Message::Flush(ack) => Some(ack),
    };
    while let Ok(first) = rx.recv() {
        let mut acks: Vec<Sender<()>> = write(&mut out, first).into_iter().collect();
        while let Ok(next) = rx.try_recv() {
            acks.extend(write(&mut out, next));
        }
        if let Some(w) = out.as_mut() {
            let _ = w.flush();
        }
        for ack in acks {
            let _ = ack.send(());
        }
    }
}

/// The process's writer, started on first use with `path`.
pub(super) fn global(path: &Path) -> &'static Writer {
    static W: OnceLock<Writer> = OnceLock::new();
    W.get_or_init(|| Writer::start(path.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servo_writer_appends_in_order_and_flush_waits_for_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let w = Writer::start(path.clone());
        let mut seqs = Vec::new();
        for i in 0..50 {
            let (seq, _) = w.stamp();
            seqs.push(seq);
            let mut s: Sample = serde_json::from_str(
                r#"{"schema":2,"source":"servo","method":"servo","site":"a","run":0,"stages":{},"outcome":"ok"}"#,
            )
            .unwrap();
            s.run = i;
            w.send(s);
        }
        w.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        let runs: Vec<u32> = text
            .lines()
            .map(|l| serde_json::from_str::<Sample>(l).unwrap().run)
            .collect();
        assert_eq!(runs, (0..50).collect::<Vec<_>>());
        assert_eq!(seqs, (0..50).collect::<Vec<_>>());
    }
}
