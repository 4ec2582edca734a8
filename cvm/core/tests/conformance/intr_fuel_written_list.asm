; A list an intrinsic writes is not constant: each iteration fills `out`
; with the squares white wins by exchange (none on the empty board, so
; `out` holds the end marker first), then tests ExchngCtrl(w, out).
; GetExchngCtrl(w, out of 66 slots): 2 + (250 + 64 x 27) + floor(min(66,
; 65) / 16) = 2 + 1978 + 4 = 1984. ExchngCtrl(w, out) on an empty list
; (one slot scanned, no squares): 2 + 250 = 252; the and-form of an empty
; list holds. Three iterations with two taken backward jumps, each over 11
; instructions (1 + 11/8 = 2 units), and the entry of the 13-instruction
; main (2): 3 x (1984 + 252) + 2 x 2 + 2 = 6714. The JIT's loop guard bounds an iteration
; by the worst contents of `out` (64 squares: 1996 for ExchngCtrl), and
; 20000 units cover three of those, so its fast copy runs: it must still
; charge what the calls cost, not the bound.
;! fuel 20000
;! fuel-used 6714
;! result 3
;! list out -1
.list out 65
.func main params 0 lists 0 locals 2 stack 2 value
.slots i n
L_top:
    push 0
    lref out
    intr GetExchngCtrl
    pop
    push 0
    lref out
    intr ExchngCtrl
    ldl n
    add
    stl n
    inc.jlt.li i 3 L_top
    ldl n
    retv
.end
