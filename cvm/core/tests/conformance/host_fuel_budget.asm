; The budget a service is offered is the fuel left after the call's own
; unit, the same on every backend. HostCall(2) answers its budget. Entry
; (8 instructions): 2. Each iteration: the call 1, write 1, and for the
; first two a backward jump over 7 instructions, 1. So the budgets are
; 1000 - 3, 1000 - 6, 1000 - 9, and 10 units are used.
;! fuel 1000
;! out 997
;! out 994
;! out 991
;! fuel-used 10
;! result none
.func main params 0 lists 0 locals 1 stack 4 proc
.slots i
L_loop:
    push 2
    push 0
    push 0
    push 0
    intr HostCall
    write
    inc.jlt.li i 3 L_loop
    ret
.end
