; With limit 3 the same chain fails at the call that would reach depth 4.
;! depth 3
;! error call-depth at d2:L_call
.func d1 params 0 lists 0 locals 0 stack 1 value
    push 1
    retv
.end
.func d2 params 0 lists 0 locals 0 stack 1 value
L_call:
    call d1
    retv
.end
.func d3 params 0 lists 0 locals 0 stack 1 value
    call d2
    retv
.end
.func main params 0 lists 0 locals 0 stack 1 value
    call d3
    retv
.end
