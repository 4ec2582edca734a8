; A deep call chain grows the register file; values survive the growth.
;! call down 3000
;! depth 5000
;! result 4501500
.func down params 1 lists 0 locals 2 stack 3 value
.slots n x y
    ldl n
    jgt.i 0 L_rec
    push 0
    retv
L_rec:
    ldl n
    ldl n
    push 1
    sub
    call down
    add
    retv
.end
