//! The instructions that only compute with values: integers, logicals and
//! sets. Each takes values and returns a value or an error message (the
//! host turns it into a runtime error at the instruction's line).

use super::meter::Meter;
use crate::table::Instr;
use crate::value::Value;
use cvm::TrapKind;

/// What an operation failed with.
pub type OpResult = Result<Value, TrapKind>;

/// A runtime type error naming the instruction.
pub fn type_error(what: &str, need: &str, got: &Value) -> TrapKind {
    TrapKind::Intrinsic(format!(
        "{what}: {} where {need} is needed",
        got.kind_name()
    ))
}

/// The integer in `v`.
pub fn int(what: &str, v: &Value) -> Result<i64, TrapKind> {
    match v {
        Value::Int(n) => Ok(*n),
        other => Err(type_error(what, "an integer", other)),
    }
}

/// The logical in `v`.
pub fn logical(what: &str, v: &Value) -> Result<bool, TrapKind> {
    match v {
        Value::Logical(b) => Ok(*b),
        other => Err(type_error(what, "a logical", other)),
    }
}

/// The elements of the set in `v`.
pub fn set<'v>(what: &str, v: &'v Value) -> Result<&'v [Value], TrapKind> {
    match v {
        Value::Set(items) => Ok(items.as_slice()),
        other => Err(type_error(what, "a set", other)),
    }
}

/// Integer arithmetic and comparisons (ADD .. ABS).
pub fn arithmetic(instr: Instr, a: &Value, b: &Value) -> OpResult {
    let name = instr.name();
    let x = int(name, a)?;
    if instr == Instr::Abs {
        return Ok(Value::Int(x.wrapping_abs()));
    }
    let y = int(name, b)?;
    let r = match instr {
        Instr::Add => x.wrapping_add(y),
        Instr::Sub => x.wrapping_sub(y),
        Instr::Mul => x.wrapping_mul(y),
        Instr::Div | Instr::Mod if y == 0 => return Err(TrapKind::DivisionByZero),
        Instr::Div => x.wrapping_div(y),
        Instr::Mod => x.wrapping_rem(y),
        Instr::Dif => x.wrapping_sub(y).wrapping_abs(),
        Instr::Min => x.min(y),
        Instr::Max => x.max(y),
        _ => return Err(TrapKind::Intrinsic(format!("{name} is not arithmetic"))),
    };
    Ok(Value::Int(r))
}

/// NOR, OR, AND.
pub fn logic(instr: Instr, a: &Value, b: &Value) -> OpResult {
    let name = instr.name();
    let x = logical(name, a)?;
    let y = logical(name, b)?;
    Ok(Value::Logical(match instr {
        Instr::Nor => !(x || y),
        Instr::Or => x || y,
        _ => x && y,
    }))
}

/// The 1-based position a GETEL-style index names: positive counts from
/// the left, 0 and negative from the right (-1 is the last element, 0 one
/// past it), as the original's index arithmetic does.
pub fn position(index: i64, len: usize) -> i64 {
    if index > 0 {
        index
    } else {
        index.saturating_add(len as i64 + 1)
    }
}

/// A bound on how far SETEL, INSERT and EXCHWE may extend a set with
/// undefined elements, so that a huge index is an error, not an
/// allocation of gigabytes.
pub const MAX_SET_LEN: i64 = 1 << 20;

fn checked_len(what: &str, n: i64) -> Result<usize, TrapKind> {
    if n > MAX_SET_LEN {
        Err(TrapKind::Intrinsic(format!(
            "{what}: index {n} would make a set of more than {MAX_SET_LEN} elements"
        )))
    } else {
        Ok(n.max(0) as usize)
    }
}

/// Set instructions that build a new set from their arguments, without a
/// limit on their work ([`set_op_metered`] with an unlimited meter).
pub fn set_op(instr: Instr, a: &Value, b: &Value, c: &Value) -> OpResult {
    set_op_metered(instr, a, b, c, &mut Meter::unlimited())
}

/// Set instructions that build a new set from their arguments, counting
/// their work on `meter` (docs/cheg.md, "Fuel"): a step for every element
/// copied into the result and every pair of value nodes compared (so
/// INTERS, DIFFER and UNION count the product of their sets' sizes, MEMBER
/// and MEMNUM the elements compared); out-of-fuel as soon as the meter's
/// budget cannot pay for the work.
pub fn set_op_metered(
    instr: Instr,
    a: &Value,
    b: &Value,
    c: &Value,
    meter: &mut Meter,
) -> OpResult {
    let name = instr.name();
    match instr {
        Instr::Pair => {
            meter.add(2)?;
            Ok(Value::set(vec![a.clone(), b.clone()]))
        }
        Instr::Member => Ok(Value::Logical(meter.position(set(name, b)?, a)?.is_some())),
        Instr::MemNum => Ok(Value::Int(
            meter
                .position(set(name, b)?, a)?
                .map_or(0, |i| i as i64 + 1),
        )),
        Instr::Card => Ok(Value::Int(set(name, a)?.len() as i64)),
        Instr::Inters | Instr::Differ => {
            let (x, y) = (set(name, a)?, set(name, b)?);
            let keep = instr == Instr::Inters;
            let mut out = Vec::new();
            for e in x {
                meter.add(1)?;
                if meter.position(y, e)?.is_some() == keep {
                    out.push(e.clone());
                }
            }
            Ok(Value::set(out))
        }
        Instr::Union => {
            let (x, y) = (set(name, a)?, set(name, b)?);
            meter.add(x.len() as u64)?;
            let mut out = x.to_vec();
            for e in y {
                meter.add(1)?;
                if meter.position(x, e)?.is_none() {
                    out.push(e.clone());
                }
            }
            Ok(Value::set(out))
        }
        Instr::Append => {
            let (x, y) = (set(name, a)?, set(name, b)?);
            meter.add(x.len() as u64 + y.len() as u64)?;
            let mut out = x.to_vec();
            out.extend_from_slice(y);
            Ok(Value::set(out))
        }
        Instr::GetEl => {
            let items = set(name, a)?;
            let n = position(int(name, b)?, items.len());
            Ok(usize::try_from(n - 1)
                .ok()
                .and_then(|i| items.get(i))
                .cloned()
                .unwrap_or(Value::Undef))
        }
        // SETEL var1,var2,var3 and INSERT var1,var2,var3: `a` is the value,
        // `b` the set, `c` the index; the result is the new set.
        Instr::SetEl | Instr::Insert => {
            let items = set(name, b)?;
            let n = position(int(name, c)?, items.len());
            if n <= 0 {
                return Ok(b.clone());
            }
            let at = checked_len(name, n)? - 1;
            meter.add(items.len().max(at + 1) as u64)?;
            let mut out = items.to_vec();
            if at >= out.len() {
                out.resize(at, Value::Undef);
                out.push(a.clone());
            } else if instr == Instr::SetEl {
                out[at] = a.clone();
            } else {
                out.insert(at, a.clone());
            }
            Ok(Value::set(out))
        }
        // UNSERT: `a` the set, `b` the index; the set without the element.
        Instr::Unsert => {
            let items = set(name, a)?;
            let n = position(int(name, b)?, items.len());
            meter.add(items.len() as u64)?;
            let mut out = items.to_vec();
            if n >= 1 && (n as usize) <= out.len() {
                out.remove(n as usize - 1);
            }
            Ok(Value::set(out))
        }
        // EXCHWE var1,var2,var3: `a` the value going in, `b` the set, `c`
        // the index; the new set.
        Instr::ExchWE => {
            let items = set(name, b)?;
            let n = position(int(name, c)?, items.len());
            if n <= 0 {
                return Ok(b.clone());
            }
            let at = checked_len(name, n)? - 1;
            meter.add(items.len().max(at + 1) as u64)?;
            let mut out = items.to_vec();
            if at >= out.len() {
                out.resize(at + 1, Value::Undef);
            }
            out[at] = a.clone();
            Ok(Value::set(out))
        }
        // EXCHEL var1,var2,var3: `a` the set, `b` and `c` the indices.
        Instr::ExchEl => {
            let items = set(name, a)?;
            let i = position(int(name, b)?, items.len());
            let j = position(int(name, c)?, items.len());
            if i <= 0 || j <= 0 || i == j {
                return Ok(a.clone());
            }
            let (i, j) = (checked_len(name, i)? - 1, checked_len(name, j)? - 1);
            let need = i.max(j) + 1;
            meter.add(items.len().max(need) as u64)?;
            let mut out = items.to_vec();
            if need > out.len() {
                out.resize(need, Value::Undef);
            }
            out.swap(i, j);
            Ok(Value::set(out))
        }
        _ => Err(TrapKind::Intrinsic(format!(
            "{name} is not a set operation"
        ))),
    }
}

/// The element UNSERT takes out (undefined when the index names none).
pub fn unsert_element(items: &[Value], index: i64) -> Value {
    let n = position(index, items.len());
    if n >= 1 && (n as usize) <= items.len() {
        items[n as usize - 1].clone()
    } else {
        Value::Undef
    }
}

/// The element EXCHWE hands back: the old element, undefined past the end
/// and for an index that names no position.
pub fn exchwe_element(items: &[Value], index: i64) -> Value {
    unsert_element(items, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Value {
        Value::set(v.iter().map(|&n| Value::Int(n)).collect())
    }

    #[test]
    fn arithmetic_follows_the_conventions() {
        let i = |n| Value::Int(n);
        assert_eq!(arithmetic(Instr::Div, &i(-7), &i(2)), Ok(i(-3)));
        assert_eq!(arithmetic(Instr::Mod, &i(-7), &i(2)), Ok(i(-1)));
        assert_eq!(
            arithmetic(Instr::Div, &i(1), &i(0)),
            Err(TrapKind::DivisionByZero)
        );
        assert_eq!(arithmetic(Instr::Dif, &i(3), &i(10)), Ok(i(7)));
        assert_eq!(arithmetic(Instr::Abs, &i(-5), &Value::Undef), Ok(i(5)));
        assert!(arithmetic(Instr::Add, &Value::Logical(true), &i(1)).is_err());
    }

    #[test]
    fn set_operations_keep_order() {
        let u = Value::Undef;
        assert_eq!(
            set_op(Instr::Union, &ints(&[3, 1]), &ints(&[1, 2, 3, 4]), &u),
            Ok(ints(&[3, 1, 2, 4]))
        );
        assert_eq!(
            set_op(Instr::Inters, &ints(&[3, 1, 5]), &ints(&[1, 3]), &u),
            Ok(ints(&[3, 1]))
        );
        assert_eq!(
            set_op(Instr::Differ, &ints(&[3, 1, 5]), &ints(&[1]), &u),
            Ok(ints(&[3, 5]))
        );
        assert_eq!(
            set_op(Instr::GetEl, &ints(&[7, 8, 9]), &Value::Int(-1), &u),
            Ok(Value::Int(9))
        );
        assert_eq!(
            set_op(Instr::GetEl, &ints(&[7, 8, 9]), &Value::Int(0), &u),
            Ok(Value::Undef)
        );
        assert_eq!(
            set_op(Instr::GetEl, &ints(&[7, 8, 9]), &Value::Int(-4), &u),
            Ok(Value::Undef)
        );
        assert_eq!(
            set_op(Instr::SetEl, &Value::Int(5), &ints(&[1]), &Value::Int(3)),
            Ok(Value::set(vec![Value::Int(1), Value::Undef, Value::Int(5)]))
        );
        assert_eq!(
            set_op(
                Instr::Insert,
                &Value::Int(5),
                &ints(&[1, 2]),
                &Value::Int(1)
            ),
            Ok(ints(&[5, 1, 2]))
        );
        assert_eq!(
            set_op(
                Instr::ExchEl,
                &ints(&[1, 2, 3]),
                &Value::Int(1),
                &Value::Int(-1)
            ),
            Ok(ints(&[3, 2, 1]))
        );
        assert!(set_op(
            Instr::SetEl,
            &Value::Int(5),
            &ints(&[1]),
            &Value::Int(1 << 40)
        )
        .is_err());
    }
}
