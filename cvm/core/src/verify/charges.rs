//! The fuel charges of verified code: the rules of [`crate::fuel`]
//! applied to a function's instructions, the same for every backend.

use super::{FunctionInfo, Program};
use crate::fuel::length_charge;
use crate::runtime::{RuntimeError, TrapKind};

impl FunctionInfo {
    /// Fuel a call of this function charges (and its entry when the
    /// embedder calls it): [`length_charge`] of its instruction count.
    pub fn call_fuel(&self) -> u64 {
        length_charge(self.instrs.len() as u64)
    }

    /// Fuel a taken jump from the instruction at code offset `at` to
    /// `target` charges: nothing when the target is after the jump, else
    /// [`length_charge`] of the instructions from the target to the jump,
    /// both included.
    pub fn jump_fuel(&self, at: u32, target: u32) -> u64 {
        if target > at {
            return 0;
        }
        let first = self.instrs.partition_point(|i| i.offset < target);
        let past = self.instrs.partition_point(|i| i.offset <= at);
        length_charge(past.saturating_sub(first) as u64)
    }
}

impl Program {
    /// Charges the entry of function `func` (which must exist) from
    /// `limit`, as both backends do before they run it: the fuel left for
    /// the run, or the out-of-fuel error at the function's first
    /// instruction when the limit cannot pay for the entry (nothing is
    /// spent then).
    pub fn charge_entry(&self, func: u32, limit: u64) -> Result<u64, RuntimeError> {
        let module = self.module();
        let cost = self.function_info(func).call_fuel();
        match limit.checked_sub(cost) {
            Some(left) => Ok(left),
            None => {
                let start = module.functions.get(func as usize).map_or(0, |f| f.start);
                Err(RuntimeError::new(TrapKind::OutOfFuel, start, module))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm;

    fn program(text: &str) -> Program {
        Program::new(asm::assemble(text).expect("assembles")).expect("verifies")
    }

    #[test]
    fn call_fuel_counts_instructions_not_words() {
        // 17 instructions (`jmp` is two words): 1 + 17 / 8 = 3.
        let body = "    push 1\n    pop\n".repeat(8);
        let p = program(&format!(
            ".func main params 0 lists 0 locals 0 stack 1 proc\n{body}    ret\n.end\n"
        ));
        assert_eq!(p.function_info(0).instrs.len(), 17);
        assert_eq!(p.function_info(0).call_fuel(), 3);
        let p = program(".func main params 0 lists 0 locals 0 stack 0 proc\n    ret\n.end\n");
        assert_eq!(p.function_info(0).call_fuel(), 1);
    }

    #[test]
    fn jump_fuel_counts_the_span_both_ends_included() {
        // L is the second instruction, the `jmp` the twelfth: a span of 11.
        let body = "    push 1\n    pop\n".repeat(4);
        let p = program(&format!(
            ".func main params 0 lists 0 locals 0 stack 1 proc\n    push 0\nL:\n    pop\n{body}    push 0\n    jmp L\n    ret\n.end\n"
        ));
        let info = p.function_info(0);
        let jmp = info.instrs[11].offset;
        let l = info.instrs[1].offset;
        assert_eq!(info.jump_fuel(jmp, l), 2);
        // A jump to itself spans one instruction; a forward one is free.
        assert_eq!(info.jump_fuel(jmp, jmp), 1);
        assert_eq!(info.jump_fuel(l, jmp), 0);
    }

    #[test]
    fn an_entry_that_cannot_be_paid_fails_at_the_first_instruction() {
        let body = "    nop\n".repeat(16);
        let p = program(&format!(
            ".func main params 0 lists 0 locals 0 stack 0 proc\n{body}    ret\n.end\n"
        ));
        assert_eq!(p.charge_entry(0, 5), Ok(2));
        assert_eq!(p.charge_entry(0, 3), Ok(0));
        let e = p.charge_entry(0, 2).expect_err("3 units needed");
        assert_eq!(e.kind, TrapKind::OutOfFuel);
        assert_eq!(e.offset, p.module().functions[0].start);
    }
}
