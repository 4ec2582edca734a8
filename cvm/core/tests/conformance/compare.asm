; Comparisons and logical not give 1 or 0.
;! out 1
;! out 0
;! out 1
;! out 0
;! out 1
;! out 1
;! out 0
;! out 1
;! out 0
;! out 1
;! out 0
;! result 0
.func main params 0 lists 0 locals 0 stack 2 value
    push 3
    push 3
    eq
    write
    push 3
    push 3
    ne
    write
    push -1
    push 0
    lt
    write
    push 0
    push -1
    lt
    write
    push 5
    push 5
    le
    write
    push 6
    push 5
    gt
    write
    push 5
    push 5
    gt
    write
    push 5
    push 5
    ge
    write
    push 7
    lnot
    write
    push 0
    lnot
    write
    push -2147483648
    push 2147483647
    gt
    write
    push 0
    retv
.end
