; nop, pop, dup, swap.
;! out 1
;! out 2
;! out 9
;! out 9
;! result 5
.func main params 0 lists 0 locals 0 stack 3 value
    nop
    push 1
    push 2
    swap
    write
    write
    push 9
    dup
    write
    write
    push 5
    push 6
    pop
    retv
.end
