; host_fuel_loop.asm running out at a host charge in the middle of the
; loop: before the seventh call (i = 6) 2 + 6 x (11 + 2) = 80 units are
; spent; the call's own unit makes 81, leaving a budget of 9 for a
; service that reports 10. Out of fuel at the HostCall, all 90 units used.
;! fuel 90
;! error out-of-fuel at main:L_call
;! fuel-used 90
.func main params 0 lists 0 locals 2 stack 5 value
.slots i s
L_loop:
    push 1
    ldl i
    push 10
    push 0
L_call:
    intr HostCall
    ldl s
    add
    stl s
    inc.jlt.li i 10 L_loop
    ldl s
    retv
.end
