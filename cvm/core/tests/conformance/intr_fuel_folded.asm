; Folded patterns charge the list form's cost without the list's scan.
; pat.any ExchngCtrl over the e-file (8 squares) for w: 2 + 250 + 8 x 27
; = 468. pat.all Control for wQ (one mover): 3 + 20 = 23; for ?? (ten
; movers: every kind but pawns, both colours): 3 + 200 = 203. pat.all
; PcOnSqrs: 2. Constants here, so the JIT tests natively; the same from
; globals (unknown to it) goes through the pattern-mask shim. Total, with
; the entry of main (25 instructions: 1 + 25/8 = 4),
; 4 + 2 x (468 + 23 + 203 + 2) = 1396, and one unit less fails at the last
; pattern with 1394 used.
;! fuel 1395
;! error out-of-fuel at main:L_last
;! fuel-used 1394
.global w 0
.global wq 516
.global any 535
.global wp 512
.func main params 0 lists 0 locals 0 stack 1 proc
    push 0
    pat.any orExchngCtrl 269488144 269488144
    pop
    push 516
    pat.all Control 0 -1
    pop
    push 535
    pat.all Control 0 -1
    pop
    push 512
    pat.all PcOnSqrs 4096 0
    pop
    ldg w
    pat.any orExchngCtrl 269488144 269488144
    pop
    ldg wq
    pat.all Control 0 -1
    pop
    ldg any
    pat.all Control 0 -1
    pop
    ldg wp
L_last:
    pat.all PcOnSqrs 4096 0
    pop
    ret
.end
