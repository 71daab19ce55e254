//! Keeping the signature pool's workers off the CPU of the thread that hands them work.
//!
//! Measured on this 2-vCPU KVM guest with `core/examples/wake.rs` (a 250 µs and an 80 µs item
//! handed to the pool 300 times, 20 ms apart: the worker asleep each time). Without placement
//! (`CERTBENCH_NO_PLACEMENT=1`) Linux woke the worker on the *caller's* CPU for 290 of the
//! items it ran (once it ran there, that is its previous CPU, and the scheduler keeps a wakee
//! there unless it finds the other CPU idle, which it apparently does not look for) — so it
//! waited behind (or preempted) the caller it was meant to help: the pair took 368–386 µs (median of two runs) against 330 µs one after the
//! other. With the workers kept off the caller's CPU: 258–261 µs, a worker starting 47–51 µs
//! after the offer, never on the caller's CPU.
//!
//! [`Placement::keep_off_current_cpu`] restricts the pool's threads to the process's CPUs
//! other than the caller's (one `sched_setaffinity` per worker, only when the caller's CPU
//! differs from the one last excluded: a caller that stays on its CPU pays one `sched_getcpu`, a vDSO read). A process
//! allowed a single CPU leaves the workers as they are. Other systems: nothing to do, and
//! nothing done.

/// The CPUs this process may run on when the pool started, and the threads to keep apart.
#[cfg(target_os = "linux")]
pub(crate) struct Placement {
    allowed: libc::cpu_set_t,
    /// Kernel thread ids of the pool's workers (registered as each starts).
    workers: std::sync::Mutex<Vec<libc::pid_t>>,
    /// The CPU the workers were last kept off, or -1.
    excluded: std::sync::atomic::AtomicI32,
}

#[cfg(target_os = "linux")]
impl Placement {
    /// The process's CPU set as it is now.
    pub(crate) fn new() -> Placement {
        // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
        let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `allowed` is a valid, writable cpu_set_t of the size passed.
        let ok = unsafe {
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed)
        } == 0;
        if !ok || std::env::var_os("CERTBENCH_NO_PLACEMENT").is_some() {
            // Unknown, or placement turned off to measure without it: treat as one CPU, so
            // that `keep_off_current_cpu` does nothing.
            // SAFETY: as above.
            allowed = unsafe { std::mem::zeroed() };
        }
        Placement {
            allowed,
            workers: std::sync::Mutex::new(Vec::new()),
            excluded: std::sync::atomic::AtomicI32::new(-1),
        }
    }

    /// Called by a worker thread as it starts.
    pub(crate) fn register_this_thread(&self) {
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        self.workers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(tid);
        // A worker started after the caller's CPU was excluded starts excluded too.
        let cpu = self.excluded.load(std::sync::atomic::Ordering::Relaxed);
        if cpu >= 0 {
            self.restrict(tid, cpu);
        }
    }

    /// Keeps the workers off the CPU the calling thread runs on now (see the module docs).
    pub(crate) fn keep_off_current_cpu(&self) {
        use std::sync::atomic::Ordering;
        // SAFETY: sched_getcpu has no preconditions.
        let cpu = unsafe { libc::sched_getcpu() };
        if cpu < 0 || self.excluded.load(Ordering::Relaxed) == cpu {
            return;
        }
        // SAFETY: CPU_COUNT reads the set.
        if unsafe { libc::CPU_COUNT(&self.allowed) } < 2 {
            return;
        }
        self.excluded.store(cpu, Ordering::Relaxed);
        let workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        for &tid in workers.iter() {
            self.restrict(tid, cpu);
        }
    }

    fn restrict(&self, tid: libc::pid_t, cpu: i32) {
        let mut set = self.allowed;
        if (cpu as usize) < libc::CPU_SETSIZE as usize {
            // SAFETY: `cpu` is below CPU_SETSIZE, the set's capacity.
            unsafe { libc::CPU_CLR(cpu as usize, &mut set) };
        }
        // SAFETY: reads the set.
        if unsafe { libc::CPU_COUNT(&set) } == 0 {
            return; // the caller runs on the only allowed CPU: leave the workers be
        }
        // SAFETY: `set` is a valid cpu_set_t of the size passed; `tid` is one of the pool's
        // own threads, which live for the whole process. A failure (a cpuset changed under
        // us) leaves that thread's affinity as it was: placement is a hint, never needed for
        // correctness.
        unsafe {
            libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }
}

/// Elsewhere: the scheduler places the workers.
#[cfg(not(target_os = "linux"))]
pub(crate) struct Placement;

#[cfg(not(target_os = "linux"))]
impl Placement {
    pub(crate) fn new() -> Placement {
        Placement
    }
    pub(crate) fn register_this_thread(&self) {}
    pub(crate) fn keep_off_current_cpu(&self) {}
}
