//! A criterion measurement that reads the benchmark thread's CPU time.
//!
//! The project's machines have two cores shared with whatever else is
//! building; with wall time, time spent descheduled lands on whichever
//! contender happened to run then. Thread CPU time removes that (cache and
//! memory-bandwidth interference from neighbours remains). On an idle
//! machine the two agree. `BENCH_CLOCK=wall` measures wall time instead.

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::Throughput;
use std::time::{Duration, Instant};

/// Thread CPU time (default) or wall time, chosen by `BENCH_CLOCK=wall`
/// (`PERFT_CLOCK=wall` is accepted too).
pub struct Clock {
    wall: bool,
}

/// A started measurement of either kind.
pub enum Started {
    /// Wall-clock start.
    Wall(Instant),
    /// Thread CPU-time start.
    Cpu(cpu_time::ThreadTime),
}

impl Clock {
    /// The clock the environment asks for.
    pub fn from_env() -> Clock {
        let wall = |var: &str| std::env::var(var).is_ok_and(|v| v == "wall");
        Clock {
            wall: wall("BENCH_CLOCK") || wall("PERFT_CLOCK"),
        }
    }
}

impl Measurement for Clock {
    type Intermediate = Started;
    type Value = Duration;

    fn start(&self) -> Started {
        if self.wall {
            Started::Wall(Instant::now())
        } else {
            Started::Cpu(cpu_time::ThreadTime::now())
        }
    }

    fn end(&self, started: Started) -> Duration {
        match started {
            Started::Wall(t) => t.elapsed(),
            Started::Cpu(t) => t.elapsed(),
        }
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &NanosFormatter
    }
}

/// Formats nanoseconds as ms and element throughput as Melem/s.
pub struct NanosFormatter;

impl ValueFormatter for NanosFormatter {
    fn scale_values(&self, _typical: f64, values: &mut [f64]) -> &'static str {
        for v in values.iter_mut() {
            *v /= 1e6;
        }
        "ms"
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let per_iteration = match *throughput {
            Throughput::Elements(n) | Throughput::ElementsAndBytes { elements: n, .. } => n,
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Bits(n) => n,
        } as f64;
        for v in values.iter_mut() {
            // nanoseconds per iteration -> millions of elements per second
            *v = per_iteration * 1e3 / *v;
        }
        "Melem/s"
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
