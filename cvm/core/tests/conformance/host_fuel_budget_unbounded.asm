; Without a fuel limit the budget offered is the cap, 2^62 units
; (cvm::fuel::HOST_BUDGET_MAX), on every backend; the conformance host
; answers it as i32::MAX. A service reporting i32::MAX units is paid.
;! out 2147483647
;! result 7
.func main params 0 lists 0 locals 0 stack 4 value
    push 2
    push 0
    push 0
    push 0
    intr HostCall
    write
    push 1
    push 7
    push 2147483647
    push 0
    intr HostCall
    retv
.end
