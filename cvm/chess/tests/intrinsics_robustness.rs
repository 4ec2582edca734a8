//! No argument and no board makes an intrinsic panic: every entry of the
//! intrinsic table, called with arbitrary values (chess literals, values
//! just outside their ranges, extremes) on arbitrary board views (pieces
//! overlapping, several kings, pawns on the back ranks) and with lists full
//! of arbitrary values, returns a value or a typed error.

use cvm::intrinsics::{Ctx, ParamKind, INTRINSICS};
use cvm::runtime::ListSlice;
use cvm::{CollectOutput, Host, Memory, TrapKind};
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;
use proptest::prelude::*;

struct BoardHost(BoardView);

impl Host for BoardHost {
    fn board(&self) -> Option<&BoardView> {
        Some(&self.0)
    }
}

/// Values near every encoding boundary, plus anything.
fn value() -> impl Strategy<Value = i32> {
    prop_oneof![
        -2..100i32,
        0x1FF..0x340i32,
        0xFFFF..0x10000 + 81 * 128,
        any::<i32>(),
        Just(i32::MIN),
        Just(i32::MAX),
    ]
}

fn board() -> impl Strategy<Value = BoardView> {
    (
        prop::array::uniform12(any::<u64>()),
        any::<u32>(),
        any::<i32>(),
    )
        .prop_map(|(sets, side, ep)| {
            let mut b = BoardView::EMPTY;
            for (i, s) in sets.iter().enumerate() {
                // Sparse sets are more chess-like; dense ones test the extremes.
                b.pieces[i / 6][i % 6] = if i % 2 == 0 {
                    s & s.rotate_left(17) & s.rotate_left(31)
                } else {
                    *s
                };
            }
            b.side_to_move = side;
            b.en_passant = ep;
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn intrinsics_never_panic(
        b in board(),
        args in prop::collection::vec(value(), 8),
        list in prop::collection::vec(value(), 0..12),
        capacity in 0u32..6,
    ) {
        for info in INTRINSICS {
            // List 0 holds the input elements (and a final end marker); list 1
            // is a short output list.
            let mut heap: Vec<i32> = list.clone();
            heap.push(-1);
            let out_base = heap.len() as u32;
            heap.extend(std::iter::repeat_n(-1, capacity as usize + 1));
            let mut memory = Memory {
                globals: Vec::new(),
                heap,
                lists: vec![
                    ListSlice { base: 0, slots: out_base },
                    ListSlice { base: out_base, slots: capacity + 1 },
                ],
            };
            let call_args: Vec<i32> = info
                .params
                .iter()
                .zip(&args)
                .map(|(p, &a)| match p.kind {
                    ParamKind::List { out: true, .. } => 1,
                    ParamKind::List { .. } => 0,
                    _ => a,
                })
                .collect();
            let mut host = BoardHost(b);
            let mut advice = Box::new(AdviceTable::default());
            let mut out = CollectOutput::default();
            let mut ctx = Ctx { memory: &mut memory, output: &mut out, host: &mut host, advice: &mut advice };
            match (info.func)(&mut ctx, &call_args) {
                Ok(v) => {
                    if info.name.starts_with("Get") && info.name != "GetStyle" && info.name != "GetScore" {
                        prop_assert!(v >= 0 && v as u32 <= capacity, "{} returned {}", info.name, v);
                    }
                }
                Err(TrapKind::ListOverflow { capacity: c, needed }) => {
                    prop_assert_eq!(c, capacity);
                    prop_assert!(needed > capacity);
                }
                Err(TrapKind::Intrinsic(m)) => prop_assert!(info.name == "SetStyle", "{}: {}", info.name, m),
                Err(e) => prop_assert!(false, "{}: unexpected {:?}", info.name, e),
            }
            // A wrong argument count or list reference is an error, not a panic.
            let mut ctx = Ctx { memory: &mut memory, output: &mut out, host: &mut host, advice: &mut advice };
            prop_assert!((info.func)(&mut ctx, &call_args[..call_args.len().saturating_sub(1)]).is_err() || info.params.is_empty());
            let bad: Vec<i32> = info
                .params
                .iter()
                .map(|p| if matches!(p.kind, ParamKind::List { .. }) { 7 } else { 0 })
                .collect();
            let mut ctx = Ctx { memory: &mut memory, output: &mut out, host: &mut host, advice: &mut advice };
            let r = (info.func)(&mut ctx, &bad);
            if info.params.iter().any(|p| matches!(p.kind, ParamKind::List { .. })) {
                prop_assert!(matches!(r, Err(TrapKind::BadCall(_))), "{}: {:?}", info.name, r);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Restricting exchange control to the squares a call names changes
    /// nothing on those squares.
    #[test]
    fn exchange_control_within_a_mask_is_the_full_set_on_it(b in board(), mask in any::<u64>(), colour in 0i32..3) {
        use cvm_chess::pattern::{exchange_control, exchange_control_within};
        prop_assert_eq!(exchange_control_within(&b, colour, mask), exchange_control(&b, colour) & mask);
    }
}
