; A counted loop calling an intrinsic: the JIT's fast copy charges by
; subtraction once its guard has found the fuel enough for every
; iteration (here 100000 units cover the bound of 5 x 1981). Five calls of
; ExchngCtrl(w, ..) (1980 each), four taken backward jumps (a span of 5
; instructions: 1 each) and the entry (7 instructions: 1): 9905 units.
;! fuel 100000
;! fuel-used 9905
;! result 5
.list sq 1 = 80
.func main params 0 lists 0 locals 1 stack 2 value
.slots i
L_top:
    push 0
    lref sq
    intr ExchngCtrl
    pop
    inc.jlt.li i 5 L_top
    ldl i
    retv
.end
