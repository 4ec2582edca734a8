; Arguments arrive in parameter slots in order.
;! call f 7 -3
;! result 10
.func f params 2 lists 0 locals 0 stack 2 value
.slots a b
    ldl a
    ldl b
    sub
    retv
.end
