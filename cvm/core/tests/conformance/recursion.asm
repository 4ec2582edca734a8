; Recursive factorial and mutual recursion.
;! call fac 10
;! result 3628800
.func fac params 1 lists 0 locals 0 stack 3 value
.slots n
    ldl n
    push 1
    le
    jz L_rec
    ldl n
    retv
L_rec:
    ldl n
    ldl n
    push 1
    sub
    call fac
    mul
    retv
.end
