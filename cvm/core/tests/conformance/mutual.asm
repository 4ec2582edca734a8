; Mutual recursion (the document's Alpha/Beta skeleton).
;! call alpha 4
;! result -7
.func evaluate params 0 lists 0 locals 0 stack 1 value
    push 7
    retv
.end
.func beta params 1 lists 0 locals 0 stack 2 value
.slots depth
    ldl depth
    push 1
    le
    jz L_rec
    call evaluate
    neg
    retv
L_rec:
    ldl depth
    push 1
    sub
    call alpha
    retv
.end
.func alpha params 1 lists 0 locals 0 stack 2 value
.slots depth
    ldl depth
    push 1
    le
    jz L_rec
    call evaluate
    retv
L_rec:
    ldl depth
    push 1
    sub
    call beta
    retv
.end
