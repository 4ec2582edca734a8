; Bitwise and, or, xor, complement.
;! out 8
;! out 14
;! out 6
;! out -13
;! out 0
;! out 1
;! result 0
.func main params 0 lists 0 locals 1 stack 2 value
    push 12
    push 10
    band
    write
    push 12
    push 10
    bor
    write
    push 12
    push 10
    bxor
    write
    push 12
    bnot
    write
    push 1
    push 1
    bxor
    write
    push 0
    push 1
    bxor
    write
    push 0
    retv
.end
