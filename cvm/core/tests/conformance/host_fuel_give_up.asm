; A service that gives up with out-of-fuel (HostCall(3)) fails the run at
; the HostCall, spending its budget: all 50 units.
;! fuel 50
;! error out-of-fuel at main:L_call
;! fuel-used 50
.func main params 0 lists 0 locals 0 stack 4 value
    push 3
    push 0
    push 0
    push 0
L_call:
    intr HostCall
    retv
.end
