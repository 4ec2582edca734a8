; Locals start at 0 on every call; globals keep their values; incl/decl/incg/decg wrap.
;! out 0
;! out 1
;! out 0
;! out 0
;! out 3
;! out -2147483648
;! out 2147483647
;! out 11
;! result 9
.global g 10
.global big 2147483647
.func bump params 0 lists 0 locals 1 stack 1 value
.slots x
    ldl x
    write
    incl x
    incl x
    decl x
    ldl x
    retv
.end
.func main params 0 lists 0 locals 1 stack 2 value
.slots t
    call bump
    write
    call bump
    stl t
    ldl t
    decl t
    ldl t
    write
    push 2
    add
    write
    incg big
    ldg big
    write
    decg big
    ldg big
    write
    incg g
    ldg g
    write
    push 9
    stg g
    ldg g
    retv
.end
