; Bounds are checked through list references too.
;! error list-index at f:L_bad
.list l 2
.func f params 0 lists 1 locals 0 stack 2 value
.slots lst
    ldl lst
    push 1000
L_bad:
    ldx
    retv
.end
.func main params 0 lists 0 locals 0 stack 1 value
    lref l
    call f
    retv
.end
