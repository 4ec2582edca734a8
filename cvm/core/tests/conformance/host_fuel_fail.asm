; A service's error other than out-of-fuel (HostCall(4)) fails the run at
; the HostCall with only the call's own unit spent: the entry (6
; instructions) 1, the call 1.
;! fuel 50
;! error intrinsic at main:L_call
;! fuel-used 2
.func main params 0 lists 0 locals 0 stack 4 value
    push 4
    push 5
    push 0
    push 0
L_call:
    intr HostCall
    retv
.end
