; Stores through references are checked.
;! error list-index at f:L_bad
.list l 2
.func f params 0 lists 1 locals 0 stack 3 proc
.slots lst
    ldl lst
    push -5
    push 1
L_bad:
    stx
    ret
.end
.func main params 0 lists 0 locals 0 stack 1 proc
    lref l
    call f
    ret
.end
