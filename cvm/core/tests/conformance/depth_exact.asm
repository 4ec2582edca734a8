; With limit 4 the chain main -> d3 -> d2 -> d1 (depth 4) is allowed.
;! depth 4
;! result 1
.func d1 params 0 lists 0 locals 0 stack 1 value
    push 1
    retv
.end
.func d2 params 0 lists 0 locals 0 stack 1 value
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
