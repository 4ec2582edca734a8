; One unit short of host_fuel_exact.asm: the service runs (its own unit is
; paid before the call), then cannot be paid for. The run fails with
; out-of-fuel at the HostCall and the service's budget, all the fuel left,
; is spent: 103 units used of 103.
;! fuel 103
;! error out-of-fuel at main:L_call
;! fuel-used 103
.func main params 0 lists 0 locals 0 stack 4 value
    push 99
    push 0
    push 0
    push 0
    intr HostCall
    pop
    push 1
    push 42
    push 100
    push 0
L_call:
    intr HostCall
    retv
.end
