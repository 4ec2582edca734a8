; A negative index is a runtime error.
;! error list-index at main:L_bad
.list l 3
.func main params 0 lists 0 locals 0 stack 1 value
    push -1
L_bad:
    lde l
    retv
.end
