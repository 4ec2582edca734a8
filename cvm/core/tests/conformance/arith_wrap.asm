; Two's complement wrap-around of + - * and unary minus.
;! out -2147483648
;! out 2147483647
;! out -2
;! out -2147483648
;! out 0
;! result 7
.func main params 0 lists 0 locals 0 stack 2 value
    push 2147483647
    push 1
    add
    write
    push -2147483648
    push 1
    sub
    write
    push 2147483647
    push 2
    mul
    write
    push -2147483648
    neg
    write
    push 65536
    push 65536
    mul
    write
    push 3
    push 4
    add
    retv
.end
