; Unbounded recursion stops at the call-depth limit (depth 1 is the embedder's call).
;! depth 50
;! error call-depth at main:L_call
.func main params 0 lists 0 locals 0 stack 0 proc
L_call:
    call main
    ret
.end
