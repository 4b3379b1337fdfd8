//! Pre-copy live migration as a state machine that the event loop drives.
//!
//! ```text
//!   pass 1     copy all assigned memory (its zero pages flagged: a transport
//!              may send them almost for free)
//!   pass k+1   copy what the guest dirtied during pass k:
//!                  d_k = min(W, dirty_rate × t_k)
//!              (W, the writable working set: dirtying saturates at it)
//!   stop       when d_k <= stop_bytes, or after max_passes passes
//!   blackout   the VM pauses: copy d_k plus the device state, then switch
//!              over (switchover seconds); the VM resumes on the destination
//! ```
//!
//! The machine only says what to copy next; the caller turns memory bytes
//! into transfers (TCP/IP, compression, SMB) on the engine and reports back
//! when each ends. `max_passes` (5 from Windows Server 2012 R2 on) and
//! `stop_bytes` are unconfirmed in Microsoft's text: named parameters.

use hvnet_engine::Seconds;

/// The memory a VM's migration moves, and how fast the guest dirties it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuestMemory {
    /// Assigned memory, bytes.
    pub assigned: f64,
    /// Bytes of it that are not zero pages.
    pub populated: f64,
    /// Bytes per second the guest writes while it runs.
    pub dirty_rate: f64,
    /// Writable working set: at most this much is dirty at once.
    pub working_set: f64,
    /// Device state copied in the blackout, bytes.
    pub device_state: f64,
}

/// When pre-copy stops iterating, and what the switch-over costs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrecopyParameters {
    /// Most pre-copy passes before the blackout (pass 1 included).
    pub max_passes: u32,
    /// Stop iterating when no more than this is left to copy.
    pub stop_bytes: f64,
    /// Time from the last byte to the VM running on the destination.
    pub switchover: Seconds,
    /// Work before the first byte that does not scale with memory: the
    /// hosts negotiate, the destination creates the VM and checks it can
    /// take its memory and devices.
    pub setup: Seconds,
    /// The part of `setup` that each host does for one migration at a time
    /// (as source or destination alike): concurrent migrations of a host
    /// take turns for it, and do the rest of their set-up in parallel
    /// (see [`crate::run`]). At most `setup`.
    pub setup_serial: Seconds,
}

impl Default for PrecopyParameters {
    fn default() -> Self {
        Self {
            max_passes: 5,
            stop_bytes: 64.0 * 1024.0 * 1024.0,
            switchover: 0.1,
            setup: 0.0,
            setup_serial: 0.0,
        }
    }
}

/// What the migration does next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// Before the first pass: set-up that does not scale with memory.
    Setup { seconds: Seconds },
    /// Copy `bytes` of memory while the VM runs; `zero_bytes` of them are
    /// zero pages (only in pass 1).
    Copy {
        pass: u32,
        bytes: f64,
        zero_bytes: f64,
    },
    /// The VM is paused: copy what is left and its device state.
    Blackout { bytes: f64 },
    /// All copied: the VM resumes on the destination after this long.
    Switchover { seconds: Seconds },
    /// The migration has ended.
    Done,
}

/// One pre-copy pass, as it happened.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pass {
    pub bytes: f64,
    pub start: Seconds,
    pub end: Seconds,
}

/// The migration of one VM.
#[derive(Clone, Debug)]
pub struct Precopy {
    memory: GuestMemory,
    parameters: PrecopyParameters,
    passes: Vec<Pass>,
    current: Option<(Step, Seconds)>,
    blackout_start: Option<Seconds>,
    end: Option<Seconds>,
}

impl Precopy {
    pub fn new(memory: GuestMemory, parameters: PrecopyParameters) -> Self {
        assert!(
            memory.assigned >= 0.0
                && memory.populated >= 0.0
                && memory.populated <= memory.assigned
        );
        assert!(
            memory.dirty_rate >= 0.0 && memory.working_set >= 0.0 && memory.device_state >= 0.0
        );
        assert!(parameters.max_passes >= 1, "at least one pass");
        Self {
            memory,
            parameters,
            passes: Vec::new(),
            current: None,
            blackout_start: None,
            end: None,
        }
    }

    /// Starts the migration at `now`: its set-up, then pass 1.
    pub fn start(&mut self, now: Seconds) -> Step {
        assert!(
            self.current.is_none() && self.end.is_none(),
            "already started"
        );
        if self.parameters.setup > 0.0 {
            let seconds = self.parameters.setup;
            return self.begin(Step::Setup { seconds }, now);
        }
        self.first_pass(now)
    }

    fn first_pass(&mut self, now: Seconds) -> Step {
        let m = self.memory;
        self.begin(
            Step::Copy {
                pass: 1,
                bytes: m.assigned,
                zero_bytes: m.assigned - m.populated,
            },
            now,
        )
    }

    /// The current step ended at `now`: the next one.
    pub fn step_ended(&mut self, now: Seconds) -> Step {
        let (step, started) = self.current.take().expect("a step under way");
        match step {
            Step::Setup { .. } => self.first_pass(now),
            Step::Copy { pass, bytes, .. } => {
                self.passes.push(Pass {
                    bytes,
                    start: started,
                    end: now,
                });
                let dirty = self
                    .memory
                    .working_set
                    .min(self.memory.dirty_rate * (now - started));
                if dirty <= self.parameters.stop_bytes || pass >= self.parameters.max_passes {
                    self.blackout_start = Some(now);
                    self.begin(
                        Step::Blackout {
                            bytes: dirty + self.memory.device_state,
                        },
                        now,
                    )
                } else {
                    self.begin(
                        Step::Copy {
                            pass: pass + 1,
                            bytes: dirty,
                            zero_bytes: 0.0,
                        },
                        now,
                    )
                }
            }
            Step::Blackout { .. } => self.begin(
                Step::Switchover {
                    seconds: self.parameters.switchover,
                },
                now,
            ),
            Step::Switchover { .. } | Step::Done => {
                self.end = Some(now);
                Step::Done
            }
        }
    }

    fn begin(&mut self, step: Step, now: Seconds) -> Step {
        self.current = Some((step, now));
        step
    }

    /// The pre-copy passes so far (the blackout copy is not one).
    pub fn passes(&self) -> &[Pass] {
        &self.passes
    }

    /// The blackout, from the VM's pause to its resume, once it has ended.
    pub fn blackout(&self) -> Option<Seconds> {
        Some(self.end? - self.blackout_start?)
    }

    pub fn end(&self) -> Option<Seconds> {
        self.end
    }
}
