; intr_fuel_loop.asm with one unit less: the guard finds the fuel short and
; the ordinary copy runs until the fifth call fails, 1 + 4 x 1981 = 7925
; used.
;! fuel 9904
;! error out-of-fuel at main:L_call
;! fuel-used 7925
.list sq 1 = 80
.func main params 0 lists 0 locals 1 stack 2 value
.slots i
L_top:
    push 0
    lref sq
L_call:
    intr ExchngCtrl
    pop
    inc.jlt.li i 5 L_top
    ldl i
    retv
.end
