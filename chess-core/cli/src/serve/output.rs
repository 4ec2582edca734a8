//! A run's output with a bound: the first lines are kept, the rest only counted.

use cvm::{Output, OutputLine};

/// Keeps at most `lines` lines and `bytes` bytes of output; counts what it drops.
#[derive(Clone, Debug)]
pub struct CappedOutput {
    /// The lines kept, in order.
    pub lines: Vec<OutputLine>,
    /// Lines written but not kept.
    pub dropped: u64,
    max_lines: usize,
    bytes_left: usize,
}

impl CappedOutput {
    /// Keeps at most `lines` lines of at most `bytes` bytes in all.
    pub fn new(lines: usize, bytes: usize) -> CappedOutput {
        CappedOutput {
            lines: Vec::new(),
            dropped: 0,
            max_lines: lines,
            bytes_left: bytes,
        }
    }

    /// Keeps the line `make` gives, of `len` bytes, if it fits; else counts it.
    fn keep(&mut self, len: usize, make: impl FnOnce() -> OutputLine) {
        if self.lines.len() < self.max_lines && len <= self.bytes_left {
            self.bytes_left -= len;
            self.lines.push(make());
        } else {
            self.dropped += 1;
        }
    }
}

impl Output for CappedOutput {
    fn write_value(&mut self, value: i32) {
        // `-2147483648 0x80000000`: at most 22 bytes.
        self.keep(22, || OutputLine::Value(value));
    }

    fn write_text(&mut self, text: &str) {
        self.keep(text.len(), || OutputLine::Text(text.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_past_the_bounds_are_counted_not_kept() {
        let mut out = CappedOutput::new(3, 1000);
        for v in 0..10 {
            out.write_value(v);
        }
        assert_eq!(out.lines.len(), 3);
        assert_eq!(out.dropped, 7);
        let mut out = CappedOutput::new(100, 10);
        out.write_text("12345");
        out.write_text("123456");
        out.write_text("12345");
        assert_eq!(out.lines.len(), 2);
        assert_eq!(out.dropped, 1);
    }
}
