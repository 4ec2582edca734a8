; A host service's reported work is charged after the call, on top of the
; call's own unit. HostCall(1, 42, 100) (conformance host: answers 42,
; reports 100 units) charges 1 + 100; HostCall(99) (a service the host
; does not meter) charges 1, as every HostCall did before services could
; report work. With the entry of main (12 instructions: 1 + 12/8 = 2),
; 2 + 101 + 1 = 104 units, exactly the limit: the run returns with none
; left.
;! fuel 104
;! fuel-used 104
;! result 42
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
    intr HostCall
    retv
.end
