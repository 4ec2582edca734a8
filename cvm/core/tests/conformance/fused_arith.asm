; ldl2 and the immediate multiply/divide/modulo forms.
;! out 13
;! out -3
;! out 10
;! out -2
;! out -1
;! out -2147483648
;! out 0
;! result 6
.func main params 0 lists 0 locals 2 stack 3 value
.slots a b
    push 10
    stl a
    push 3
    stl b
    ldl2 a b
    add
    write
    ldl2 b a
    sub
    add.i 4
    write
    ldl a
    mul.i 1
    write
    push -7
    div.i 3
    write
    push -7
    mod.i 3
    write
    push -2147483648
    div.i -1
    write
    push -2147483648
    mod.i -1
    write
    ldl b
    mul.i 2
    retv
.end
